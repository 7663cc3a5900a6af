import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// The upload: the changes made offline, checked, then applied in one transaction.
extension SyncRoutes {
    /// One change of an upload, checked.
    struct UploadedChange: Sendable {
        let index: Int
        /// A measurement kind, `meal`, `npi` or `melanoma-risk-profile`, as the change named it.
        let kind: String
        let write: RecordWrite
    }

    /// The definition of what a change names: a measurement kind, `meal`, `npi` or `melanoma-risk-profile`.
    func uploadDefinition(kind: String) -> RecordDefinition? {
        switch kind {
        case RecordKind.meal.family: meals
        case RecordKind.npi.family: ClinicalInputRoutes.npi
        case RecordKind.melanomaRiskProfile.family: ClinicalInputRoutes.melanomaRiskProfile
        default: MeasurementKind(rawValue: kind).map(MeasurementRoutes.definition)
        }
    }

    /// An offline upload as the app sends it.
    struct Upload: SchemaBody {
        static let schema: RequestSchema = .syncChanges
        struct Change: Decodable, Sendable {
            /// A measurement kind, `meal`, `npi` or `melanoma-risk-profile`.
            let kind: String
            let id: String
            let updatedAt: Date
            let deleted: Bool?
            /// The record as its kind's request describes it: checked against that schema once the kind is known, and
            /// completed as its own route completes it before it is decoded.
            var record: JSONValue?

            func `is`(_ kind: RecordKind) -> Bool { self.kind == kind.family }
        }
        var changes: [Change]
    }

    struct ChangeResult: Encodable, Sendable {
        let index: Int
        let kind: String
        let id: String
        /// recorded, corrected, deleted, unchanged, conflict, refused, or failed (its record changed meanwhile: send it again).
        let status: WriteOutcome
        var revision: Int?
        var eventId: UUID?
        /// Why a conflict: `stale` (the stored version is as new or newer) or `deleted` (deletions are final).
        var reason: String?
        /// The stored version, with a conflict.
        var stored: StoredVersion?
        /// Every failing field, with a refusal.
        var violations: [SchemaViolation]?
    }

    struct StoredVersion: Encodable, Sendable {
        let revision: Int
        let updatedAt: Date
        let deleted: Bool
        let record: JSONValue?
    }

    struct UploadAnswer: Encodable, Sendable {
        let results: [ChangeResult]
        /// The feed position of the newest change this upload committed (the patient's newest before it, when it
        /// committed none). Changes other devices made before it may lie behind it: keep reading from your own cursor.
        let checkpoint: String
    }

    func upload(_ request: Request, _ context: CaretideRequestContext) async throws -> Response {
        let patientID = try PatientID.fromPath(context)
        var changes = try await request.decode(as: Upload.self, context: context).changes
        var results: [Int: ChangeResult] = [:]
        var accepted: [UploadedChange] = []
        var seen: Set<RecordStore.Key> = []
        let now = Date()
        // A meal sent without its time zone takes the profile's, as a POST's does (`MealRoutes.inProfileTimeZone`):
        // the profile is read once for the upload, and only if a meal needs it.
        if changes.contains(where: { $0.is(.meal) && $0.record.map(MealRoutes.lacksTimeZone) == true }),
            let zone = try await MealRoutes.profileTimeZone(patientID: patientID, context: records.context)
        {
            for index in changes.indices where changes[index].is(.meal) {
                changes[index].record = changes[index].record.map { MealRoutes.body($0, inTimeZone: zone) }
            }
        }
        // NPI inputs as the feed gave them carry who entered them, which the server sets: it is set again by the check,
        // for this upload's caller.
        for index in changes.indices where changes[index].is(.npi) {
            guard case .object(var record)? = changes[index].record else { continue }
            record["recordedBy"] = nil
            changes[index].record = .object(record)
        }
        // A melanoma risk profile without an age or a sex takes them from the patient's profile, as its PUT does (the
        // profile read once for the upload, if one needs it).
        if changes.contains(where: { $0.is(.melanomaRiskProfile) && $0.record.map(ClinicalInputRoutes.lacksProfileFactors) == true }) {
            let profile = try await ProfileStore(records.context).current(patientID: patientID)?.profile
            for index in changes.indices where changes[index].is(.melanomaRiskProfile) {
                changes[index].record = changes[index].record.map { ClinicalInputRoutes.completed($0, from: profile).0 }
            }
        }
        for (index, change) in changes.enumerated() {
            switch check(change, index: index, patientID: patientID, traceID: context.requestID, now: now, enteredBy: context.identity, seen: &seen) {
            case .accepted(let checked): accepted.append(checked)
            case .refused(let refusal): results[index] = refusal
            }
        }
        let applying = accepted
        let applied = try await records.context.transaction(auditing: context.origin, status: { _ in 200 }) { handler in
            try await apply(applying, patientID: patientID, handler: handler)
        }
        for result in applied.results { results[result.index] = result }
        return try jsonResponse(UploadAnswer(results: results.keys.sorted().compactMap { results[$0] }, checkpoint: Self.cursor(applied.checkpoint)))
    }

    struct Applied: Sendable {
        let results: [ChangeResult]
        let checkpoint: Int64
    }

    /// Applies the accepted changes in the request's transaction, through the one writer of records
    /// (`RecordWriter`): the patient's counter is locked first, so the checkpoint is the newest change of the patient
    /// whatever other devices wrote.
    func apply(_ changes: [UploadedChange], patientID: String, handler: HandlerContext) async throws -> Applied {
        let before = try await ChangeFeedStore(handler).takeChanges(patientID: patientID, count: 0)
        let written = try await RecordWriter.apply(changes.map(\.write), handler: handler)
        var results: [ChangeResult] = []
        var checkpoint = before
        for (change, result) in zip(changes, written) {
            switch result {
            case .success(let outcome):
                if let changeSeq = outcome.changeSeq { checkpoint = max(checkpoint, changeSeq) }
                results.append(
                    ChangeResult(
                        index: change.index, kind: change.kind, id: change.write.recordID, status: outcome.status, revision: outcome.revision,
                        eventId: outcome.eventID, reason: outcome.conflict?.reason.rawValue,
                        stored: outcome.conflict.map {
                            StoredVersion(
                                revision: $0.stored.revision, updatedAt: $0.stored.updatedAt, deleted: $0.stored.deleted,
                                record: $0.stored.deleted ? nil : $0.stored.body)
                        }))
            case .failure(let problem as HTTPProblem) where problem.status == .conflict:
                // Its id is another patient's (refused, as its check would), or its record changed under it: send again.
                results.append(
                    ChangeResult(
                        index: change.index, kind: change.kind, id: change.write.recordID, status: problem.violations.isEmpty ? .failed : .refused,
                        violations: problem.violations.isEmpty ? nil : problem.violations))
            case .failure(let error):
                throw error
            }
        }
        return Applied(results: results, checkpoint: checkpoint)
    }
}
