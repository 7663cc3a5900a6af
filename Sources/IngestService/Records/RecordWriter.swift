import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Hummingbird

/// One record written by a single request (a POST, a PUT, a report of an HL7 v2 message or a FHIR Bundle), checked
/// and decoded once, waiting for its group commit.
struct RecordWrite: Sendable {
    let definition: RecordDefinition
    let mode: RecordRoutes.Mode
    let patientID: String
    let recordID: String
    let body: JSONValue
    let bodyText: String
    /// The payload of the body as revision 1, decoded when the request was checked: what a new record announces.
    let first: RecordPayload
    /// What the kind's rule made of it, computed when it was checked; nil for a kind no rule assesses (a meal).
    let assessment: Assessment?
    let traceID: String

    var key: RecordStore.Key { RecordStore.Key(kind: definition.kind, id: recordID) }
}

/// What a single write does to the record it meets: the rule of `RecordRoutes` (create stores once per id, put
/// creates or corrects, an id belongs to one patient, a deleted record stays deleted). Pure, so every case is tested
/// without a database.
enum RecordRevisionRule {
    enum Decision: Equatable {
        /// The record stays as it is; the receipt says so with `status`.
        case keep(WriteOutcome)
        /// The body becomes the record's next revision.
        case correct(revision: Int)
        case idTaken
        case deleted
    }

    /// The decision for a write of `body` by `patientID` that met `stored` (the record holding its id).
    static func decide(mode: RecordRoutes.Mode, patientID: String, body: JSONValue, stored: RecordStore.Stored) -> Decision {
        guard stored.patientID == patientID else { return .idTaken }
        guard !stored.version.deleted else { return .deleted }
        if mode == .create { return .keep(.duplicate) }
        if stored.version.body == body { return .keep(.unchanged) }
        return .correct(revision: stored.version.revision + 1)
    }
}

/// The group commit of single record writes (`GroupCommit`): concurrent requests' records go in one transaction of
/// five statements, whatever their number: the patients' change numbers, the new records, the audit rows with every
/// event, BEGIN and COMMIT. A record whose id is taken is locked and decided by `RecordRevisionRule`, in the same
/// transaction.
enum RecordWriter {
    static func groupCommit(context: ServiceContext) -> GroupCommit<RecordWrite, RecordRoutes.Receipt> {
        GroupCommit(name: "records", context: context, key: { $0.key }, status: { $0.httpStatus.code }) {
            writes, handler in
            try await apply(writes, handler: handler)
        }
    }

    static func apply(_ writes: [RecordWrite], handler: HandlerContext) async throws -> [Result<RecordRoutes.Receipt, any Error>] {
        guard !writes.isEmpty else { return [] }
        let store = RecordStore(handler)
        // The patients' change numbers first (the lock order of every writer), one for each write: one whose record
        // turns out unchanged leaves a gap in its patient's numbers, which the changes feed allows.
        var counts: [String: Int] = [:]
        for write in writes { counts[write.patientID, default: 0] += 1 }
        var next = try await ChangeFeedStore(handler).takeChanges(counts)
        let erased = Set(counts.keys).subtracting(next.keys)
        if !erased.isEmpty {
            // A patient whose data was erased takes no write (410); the others go on as if alone (their counters taken
            // twice leave a gap, which the changes feed allows).
            var others = try await apply(writes.filter { !erased.contains($0.patientID) }, handler: handler).makeIterator()
            return writes.map { erased.contains($0.patientID) ? .failure(HTTPProblem.patientErased) : others.next()! }
        }
        for (patient, count) in counts { next[patient, default: 0] -= Int64(count) }
        let changeSeqs = writes.map { write in
            next[write.patientID, default: 0] += 1
            return next[write.patientID, default: 0]
        }

        let firsts = writes.map { handler.envelope(of: $0.first.event, patientID: $0.patientID, traceID: $0.traceID) }
        let inserted = try await store.insert(
            writes.indices.map { index in
                let write = writes[index]
                return RecordStore.Write(
                    key: write.key, patientID: write.patientID, revision: 1, bodyText: write.bodyText,
                    observedAt: write.first.observedAt, eventID: firsts[index].eventID, changeSeq: changeSeqs[index],
                    clientUpdatedAt: nil)
            })
        let met = writes.filter { !inserted.contains($0.key) }
        let stored = Dictionary(try await store.lock(met.map(\.key)).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })

        var results: [Result<RecordRoutes.Receipt, any Error>] = []
        var revisions: [RecordStore.Write] = []
        var announced: [(AnyEnvelope, StoredRevision, onStored: (@Sendable (HandlerContext, StoredRevision) async throws -> Void)?)] = []
        for (index, write) in writes.enumerated() {
            if inserted.contains(write.key) {
                results.append(.success(RecordRoutes.Receipt(id: write.recordID, revision: 1, eventId: firsts[index].eventID, status: .recorded)))
                announced.append((firsts[index], StoredRevision(write, revision: 1), write.first.onStored))
                continue
            }
            // Deleted for good (a purged tombstone) between the insert and the lock.
            guard let existing = stored[write.key] else {
                results.append(.failure(HTTPProblem(status: .conflict, error: "the record changed concurrently; retry")))
                continue
            }
            switch RecordRevisionRule.decide(mode: write.mode, patientID: write.patientID, body: write.body, stored: existing) {
            case .keep(let status):
                results.append(
                    .success(
                        RecordRoutes.Receipt(id: write.recordID, revision: existing.version.revision, eventId: existing.lastEventID, status: status)))
            case .idTaken:
                results.append(.failure(RecordRoutes.idTaken))
            case .deleted:
                results.append(.failure(HTTPProblem(status: .conflict, error: "this record was deleted and cannot be changed", violations: [])))
            case .correct(let revision):
                do {
                    let payload = try RecordRoutes.decodePayload(write.definition, body: write.body, recordID: write.recordID, revision: revision)
                    let envelope = handler.envelope(of: payload.event, patientID: write.patientID, traceID: write.traceID)
                    revisions.append(
                        RecordStore.Write(
                            key: write.key, patientID: write.patientID, revision: revision, bodyText: write.bodyText,
                            observedAt: payload.observedAt, eventID: envelope.eventID, changeSeq: changeSeqs[index],
                            clientUpdatedAt: nil))
                    announced.append((envelope, StoredRevision(write, revision: revision), payload.onStored))
                    results.append(
                        .success(RecordRoutes.Receipt(id: write.recordID, revision: revision, eventId: envelope.eventID, status: .corrected)))
                } catch {
                    results.append(.failure(error))
                }
            }
        }
        try await store.revise(revisions)
        // Each write's event, then what it sets off (an exam report's release), in the order the writes came.
        for (envelope, revision, onStored) in announced {
            try await handler.publish(envelope)
            try await onStored?(handler, revision)
        }
        return results
    }
}

extension StoredRevision {
    init(_ write: RecordWrite, revision: Int) {
        self.init(patientID: write.patientID, recordID: write.recordID, revision: revision, traceID: write.traceID)
    }
}
