import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Offline sync for patient apps (the seed's UpdateTime / IsDelete):
/// - `GET  /v1/patients/{patientId}/changes?cursor=&limit=&device=`: every change to the patient's records after the
///   cursor, in commit order: each record's newest state, or its tombstone. `nextCursor` continues; `hasMore` says
///   whether to ask again now. A cursor from before tombstones that were purged gets a 410 with `resyncRequired`.
/// - `POST /v1/patients/{patientId}/changes`: up to 1,000 measurement and meal changes made offline, in one
///   transaction, with a result per change (`LastWriterWins` decides each).
struct SyncRoutes: Sendable {
    let records: RecordRoutes
    /// How meal records are resolved against the food table (`MealRoutes`).
    let meals: RecordDefinition

    /// What the feed carries: what a patient's app writes. Exam reports reach patients through their release.
    static let feedKinds = RecordKind.all.filter { $0 != .examResult }
    static let uploadSchema: RequestSchema = .syncChanges

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/changes", access: .patientData(.read),
            summary: "Every change to the patient's measurements and clinical inputs after the cursor, in commit order (deletions as tombstones)",
            query: [QueryParameter("device", "The reading device's own id (up to 64 of A-Z a-z 0-9 . _ -): its position lets tombstones go sooner")],
            paged: true
        ) { request, context in
            try await feed(request, context)
        }
        routes.post(
            "v1/patients/:patientId/changes", access: .patientData(.write),
            summary: "Upload up to 1,000 measurement and meal changes made offline; the last writer wins by updatedAt, a deletion wins over updates",
            body: [Self.uploadSchema], bodyLimit: Outbox.maximumEventBytes
        ) { request, context in
            try await upload(request, context)
        }
    }

    // MARK: - The feed

    struct FeedPage: Encodable {
        let changes: [FeedEntry]
        let nextCursor: String
        let hasMore: Bool
    }

    struct FeedEntry: Encodable {
        /// `measurement`, `npi` or `melanoma-risk-profile`.
        let type: String
        /// The measurement kind, for measurements.
        let kind: String?
        let id: String
        let revision: Int
        /// The device's time of the change, or the server's for a change made without one.
        let updatedAt: Date
        let deleted: Bool
        let deletedAt: Date?
        /// The record as it was sent; absent for a tombstone.
        let record: JSONValue?
    }

    struct ResyncRequired: Encodable {
        let error = "deletions after this cursor are no longer kept; read the feed again without a cursor and replace the local copy"
        let resyncRequired = true
    }

    private func feed(_ request: Request, _ context: CaretideRequestContext) async throws -> Response {
        let patientID = try PatientID.fromPath(context)
        let page = try PageRequest.from(request)
        let after = try Self.changeNumber(page.after)
        let device = try Self.deviceID(request)
        let store = ChangeFeedStore(records.context)
        let (purgedThrough, changes) = try await store.changes(patientID: patientID, after: after, limit: page.limit, kinds: Self.feedKinds)
        // Without a cursor (or from 0) a device takes the current state, which needs no tombstones.
        if after > 0, after < purgedThrough {
            return try jsonResponse(ResyncRequired(), status: .gone)
        }
        if let device {
            try await store.deviceRead(patientID: patientID, deviceID: device, syncedThrough: after)
        }
        let shown = changes.prefix(page.limit)
        return try jsonResponse(
            FeedPage(
                changes: try shown.map(Self.entry), nextCursor: Self.cursor(shown.last?.seq ?? after), hasMore: changes.count > page.limit))
    }

    static func entry(_ change: ChangeFeedStore.Change) throws -> FeedEntry {
        FeedEntry(
            type: change.kind.family, kind: change.kind.measurementKind?.rawValue, id: change.recordID, revision: change.revision,
            updatedAt: change.updatedAt,
            deleted: change.deletedAt != nil, deletedAt: change.deletedAt,
            record: change.deletedAt == nil ? try CaretideJSON.parse(Array(change.body.utf8)) : nil)
    }

    /// The feed's cursors are change numbers, opaque to callers like every page cursor.
    static func cursor(_ changeNumber: Int64) -> String { PageRequest.Cursor(position: String(changeNumber), id: "change").encoded }

    static func changeNumber(_ cursor: PageRequest.Cursor?) throws -> Int64 {
        guard let cursor else { return 0 }
        guard cursor.id == "change", let number = Int64(cursor.position), number >= 0 else { throw PageRequest.badCursor }
        return number
    }

    static func deviceID(_ request: Request) throws -> String? {
        guard let text = request.uri.queryParameters.get("device") else { return nil }
        guard let device = CaretideRequestContext.callerChosenID(text) else {
            throw HTTPProblem(
                status: .badRequest, error: "the query is invalid",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["device"]), message: "must be 1 to 64 of A-Z a-z 0-9 . _ -")])
        }
        return device
    }

    // MARK: - The upload

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
        let status: String
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

    private func upload(_ request: Request, _ context: CaretideRequestContext) async throws -> Response {
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

    enum Checked {
        case accepted(UploadedChange)
        case refused(ChangeResult)
    }

    /// A change whose every field is acceptable, or its refusal naming each failing field under `/changes/{index}`.
    private func check(_ item: JSONValue, index: Int, now: Date, enteredBy identity: Identity?, seen: inout Set<RecordStore.Key>) -> Checked {
        let at = JSONPointer(tokens: ["changes", String(index)])
        let kindName = item["kind"]?.stringValue ?? ""
        let id = item["id"]?.stringValue?.lowercased() ?? ""
        func refused(_ violations: [SchemaViolation]) -> Checked {
            .refused(ChangeResult(index: index, kind: kindName, id: id, status: "refused", violations: violations))
        }
        // The upload's schema has checked the forms of kind, id and updatedAt.
        guard let definition = uploadDefinition(kind: kindName), let updatedAt = item["updatedAt"]?.stringValue.flatMap(Timestamp.parse) else {
            return refused([SchemaViolation(pointer: at, message: "is not a change")])
        }
        var violations: [SchemaViolation] = []
        if updatedAt > now.addingTimeInterval(RecordRoutes.clockSkew) {
            violations.append(SchemaViolation(pointer: at.appending("updatedAt"), message: RecordRoutes.futureMessage))
        }
        if !seen.insert(RecordStore.Key(kind: definition.kind, id: id)).inserted {
            violations.append(
                SchemaViolation(pointer: at.appending("id"), message: "appears more than once in this upload; send one change per record"))
        }
        let deleted = item["deleted"] == .bool(true)
        let record = item["record"]
        if !deleted {
            if let record {
                violations += recordViolations(record, definition: definition, id: id, now: now).map {
                    SchemaViolation(
                        pointer: JSONPointer(tokens: at.tokens + ["record"] + JSONPointer(parsing: $0.pointer).tokens), message: $0.message)
                }
            } else {
                violations.append(SchemaViolation(pointer: at.appending("record"), message: "is required unless deleted is true"))
            }
        }
        guard violations.isEmpty else { return refused(violations) }
        return .accepted(
            UploadedChange(
                index: index, kind: kindName, definition: definition, id: id,
                // NPI inputs carry who entered them, as their PUT's do (added once the request schema has passed).
                change: .init(
                    updatedAt: updatedAt, deleted: deleted,
                    body: deleted ? nil : definition.kind == .npi ? record.map { ClinicalInputRoutes.enteredBy(identity, $0) } : record)))
    }

    /// What a single POST of the record would be told: its schema, its id, the clinical rules and the clock.
    private func recordViolations(_ record: JSONValue, definition: RecordDefinition, id: String, now: Date) -> [SchemaViolation] {
        do {
            var violations = try records.violations(definition, body: record, recordID: id, now: now)
            // A measurement or a meal names its id in its body too; NPI inputs and a risk profile take the change's.
            let idField: String? =
                switch definition.kind {
                case .meal: "mealId"
                case .measurement: "measurementId"
                default: nil
                }
            if let idField, let given = record[idField]?.stringValue, given.lowercased() != id {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: [idField]), message: "must equal the change's id"))
            }
            return violations
        } catch let problem as HTTPProblem {
            return problem.violations
        } catch {
            return [SchemaViolation(pointer: .root, message: "cannot be read")]
        }
    }

    struct Applied: Sendable {
        let results: [ChangeResult]
        let checkpoint: Int64
    }

    /// Applies the accepted changes in the request's transaction: the patient's change counter first (the lock order
    /// of every writer), then the records concerned, locked; each change decided against what it meets; new records
    /// inserted, revisions and deletions written, each with its change number and event.
    private func apply(_ changes: [UploadedChange], patientID: String, requestID: String, handler: HandlerContext) async throws -> Applied {
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
                    ChangeResult(index: upload.index, kind: kind, id: upload.id, status: "refused", violations: RecordRoutes.idTaken.violations))
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
                        index: upload.index, kind: kind, id: upload.id, status: outcome == .insert ? "recorded" : "corrected", revision: revision,
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
                        index: upload.index, kind: kind, id: upload.id, status: "deleted", revision: existing.version.revision,
                        eventId: envelope.eventID))
            case .refresh:
                refreshes.append((upload.key, upload.change.updatedAt))
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: "unchanged", revision: existing?.version.revision,
                        eventId: existing?.lastEventID))
            case .unchanged:
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id,
                        status: existing?.version.deleted == true || upload.change.deleted ? "deleted" : "unchanged",
                        revision: existing?.version.revision, eventId: existing?.lastEventID))
            case .conflict(let conflict):
                let version = existing.map {
                    StoredVersion(
                        revision: $0.version.revision, updatedAt: $0.version.updatedAt, deleted: $0.version.deleted,
                        record: $0.version.deleted ? nil : $0.version.body)
                }
                results.append(
                    ChangeResult(
                        index: upload.index, kind: kind, id: upload.id, status: "conflict", revision: existing?.version.revision,
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
                    index: upload.index, kind: upload.kind, id: upload.id, status: "refused", violations: RecordRoutes.idTaken.violations)
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
