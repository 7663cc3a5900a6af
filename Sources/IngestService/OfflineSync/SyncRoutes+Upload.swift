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
        let definition: RecordDefinition
        let id: String
        let change: LastWriterWins.Change
        var key: RecordStore.Key { RecordStore.Key(kind: definition.kind, id: id) }
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

    struct ChangeResult: Encodable, Sendable {
        let index: Int
        let kind: String
        let id: String
        /// recorded, corrected, deleted, unchanged, conflict or refused.
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
        let body = try await request.validatedJSON(schema: Self.uploadSchema, context: context)
        var results: [Int: ChangeResult] = [:]
        var accepted: [UploadedChange] = []
        var seen: Set<RecordStore.Key> = []
        let now = Date()
        guard case .array(var items)? = body["changes"] else { throw HTTPProblem.invalidBody([]) }  // the schema requires it
        // A meal sent without its time zone takes the profile's, as a POST's does (`MealRoutes.inProfileTimeZone`):
        // the profile is read once for the upload, and only if a meal needs it.
        func meal(_ item: JSONValue) -> JSONValue? { item["kind"]?.stringValue == RecordKind.meal.family ? item["record"] : nil }
        if items.contains(where: { meal($0).map(MealRoutes.lacksTimeZone) == true }),
            let zone = try await MealRoutes.profileTimeZone(patientID: patientID, context: records.context)
        {
            items = items.map { item in meal(item).map { item.merging(["record": MealRoutes.body($0, inTimeZone: zone)]) } ?? item }
        }
        // NPI inputs as the feed gave them carry who entered them, which the server sets: it is set again below, for
        // this upload's caller.
        items = items.map { item in
            guard item["kind"]?.stringValue == RecordKind.npi.family, case .object(var record)? = item["record"] else { return item }
            record["recordedBy"] = nil
            return item.merging(["record": .object(record)])
        }
        // A melanoma risk profile without an age or a sex takes them from the patient's profile, as its PUT does (the
        // profile read once for the upload, if one needs it).
        func riskProfile(_ item: JSONValue) -> JSONValue? {
            item["kind"]?.stringValue == RecordKind.melanomaRiskProfile.family ? item["record"] : nil
        }
        if items.contains(where: { riskProfile($0).map(ClinicalInputRoutes.lacksProfileFactors) == true }) {
            let profile = try await ProfileStore(records.context).current(patientID: patientID)?.profile
            items = items.map { item in riskProfile(item).map { item.merging(["record": ClinicalInputRoutes.completed($0, from: profile).0]) } ?? item
            }
        }
        for (index, item) in items.enumerated() {
            switch check(item, index: index, now: now, enteredBy: context.identity, seen: &seen) {
            case .accepted(let change): accepted.append(change)
            case .refused(let refusal): results[index] = refusal
            }
        }
        let (requestID, changes) = (context.requestID, accepted)
        let applied = try await records.context.transaction(auditing: context.origin, status: { _ in 200 }) { handler in
            try await apply(changes, patientID: patientID, requestID: requestID, handler: handler)
        }
        for result in applied.results { results[result.index] = result }
        return try jsonResponse(UploadAnswer(results: results.keys.sorted().compactMap { results[$0] }, checkpoint: Self.cursor(applied.checkpoint)))
    }

    struct Applied: Sendable {
        let results: [ChangeResult]
        let checkpoint: Int64
    }

    /// Applies the accepted changes in the request's transaction: the patient's change counter first (the lock order
    /// of every writer), then the records concerned, locked; each change decided against what it meets; new records
    /// inserted, revisions and deletions written, each with its change number and event.
    func apply(_ changes: [UploadedChange], patientID: String, requestID: String, handler: HandlerContext) async throws -> Applied {
        let feed = ChangeFeedStore(handler)
        let store = RecordStore(handler)
        let before = try await feed.takeChanges(patientID: patientID, count: 0)
        guard !changes.isEmpty else { return Applied(results: [], checkpoint: before) }
        var stored: [RecordStore.Key: RecordStore.Stored] = [:]
        for record in try await store.lock(changes.map(\.key)) { stored[record.key] = record }
        var last = before
        var results: [ChangeResult] = []
        var inserts: [(UploadedChange, RecordStore.Write, AnyEnvelope)] = []
        var revisions: [RecordStore.Write] = []
        var deletions: [RecordStore.Deletion] = []
        var refreshes: [(key: RecordStore.Key, updatedAt: Date)] = []
        var events: [(index: Int, envelope: AnyEnvelope)] = []
        for upload in changes {
            let existing = stored[upload.key]
            let kind = upload.kind
            if let existing, existing.patientID != patientID {
                results.append(
                    ChangeResult(index: upload.index, kind: kind, id: upload.id, status: .refused, violations: RecordRoutes.idTaken.violations))
                continue
            }
            let outcome = LastWriterWins.decide(upload.change, stored: existing?.version)
            switch outcome {
            case .insert, .revise:
                let revision = LastWriterWins.apply(outcome, of: upload.change, to: existing?.version)?.revision ?? 1
                let body = upload.change.body ?? .null
                let payload = try RecordRoutes.decodePayload(upload.definition, body: body, recordID: upload.id, revision: revision)
                let envelope = handler.envelope(of: payload.event, patientID: patientID, traceID: requestID)
                last += 1
                let write = RecordStore.Write(
                    key: upload.key, patientID: patientID, revision: revision,
                    bodyText: try CaretideJSON.encodeToString(body),
                    observedAt: payload.observedAt, eventID: envelope.eventID, changeSeq: last,
                    clientUpdatedAt: upload.change.updatedAt)
                if outcome == .insert {
                    inserts.append((upload, write, envelope))
                } else {
                    revisions.append(write)
                    events.append((upload.index, envelope))
                }
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: outcome == .insert ? .recorded : .corrected, revision: revision,
                        eventId: envelope.eventID))
            case .delete:
                guard let existing, let deletion = upload.definition.deletion else { continue }
                let envelope = handler.envelope(of: deletion(upload.id, Date()), patientID: patientID, traceID: requestID)
                last += 1
                deletions.append(
                    RecordStore.Deletion(
                        key: upload.key, eventID: envelope.eventID, changeSeq: last,
                        clientUpdatedAt: upload.change.updatedAt))
                events.append((upload.index, envelope))
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: .deleted, revision: existing.version.revision,
                        eventId: envelope.eventID))
            case .refresh:
                refreshes.append((upload.key, upload.change.updatedAt))
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: .unchanged, revision: existing?.version.revision,
                        eventId: existing?.lastEventID))
            case .unchanged:
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id,
                        status: existing?.version.deleted == true || upload.change.deleted ? .deleted : .unchanged,
                        revision: existing?.version.revision, eventId: existing?.lastEventID))
            case .conflict(let conflict):
                let version = existing.map {
                    StoredVersion(
                        revision: $0.version.revision, updatedAt: $0.version.updatedAt, deleted: $0.version.deleted,
                        record: $0.version.deleted ? nil : $0.version.body)
                }
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: .conflict, revision: existing?.version.revision,
                        reason: conflict.rawValue,
                        stored: version))
            }
        }
        // An id that another patient's record took since the records were locked is refused, and its event dropped.
        let inserted = try await store.insert(inserts.map(\.1))
        for (upload, write, envelope) in inserts {
            if inserted.contains(write.key) {
                events.append((upload.index, envelope))
            } else if let position = results.firstIndex(where: { $0.index == upload.index }) {
                results[position] = ChangeResult(
                    index: upload.index, kind: upload.kind, id: upload.id, status: .refused, violations: RecordRoutes.idTaken.violations)
            }
        }
        try await store.revise(revisions)
        try await store.markDeleted(deletions)
        try await store.refreshTimes(refreshes)
        if last > before { try await feed.setLastChange(patientID: patientID, to: last) }
        // In the order of the upload, as a device made them.
        for (_, envelope) in events.sorted(by: { $0.index < $1.index }) { try await handler.publish(envelope) }
        return Applied(results: results, checkpoint: last)
    }
}
