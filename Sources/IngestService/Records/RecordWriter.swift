import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Hummingbird

/// A record's body that passed its schema, the clinical rules and the clock, decoded once.
struct CheckedRecord: Sendable {
    let body: JSONValue
    let bodyText: String
    /// The payload of the body as revision 1: what a new record announces.
    let first: RecordPayload
    /// What the kind's rule made of it; nil for a kind no rule assesses (a meal).
    let assessment: Assessment?
}

/// One write to one record, from any door: a POST or a PUT, a DELETE, a report of a batch or a message, a change of
/// an offline upload. Every one goes through `RecordWriter`. A class: a write is handed along from the request to its
/// batch and its statements, and a copy of its many members at each step cost more than the rest of that step.
final class RecordWrite: Sendable {
    enum Change: Sendable {
        /// Stored once per id: sending it again is a duplicate.
        case create(CheckedRecord)
        /// Creates, or corrects: a changed body is the next revision.
        case put(CheckedRecord)
        /// Marks the record deleted, announced by the kind's deletion event, or by `announcing` when the caller words it
        /// (a patient's "this is not me" on an exam report).
        case delete(announcing: (any EventPayload)? = nil)
        /// An offline device's change made at `updatedAt` (`LastWriterWins`); a deletion carries no record.
        case sync(CheckedRecord?, updatedAt: Date)
    }

    let definition: RecordDefinition
    let change: Change
    let patientID: String
    let recordID: String
    let traceID: String

    init(definition: RecordDefinition, change: Change, patientID: String, recordID: String, traceID: String) {
        self.definition = definition
        self.change = change
        self.patientID = patientID
        self.recordID = recordID
        self.traceID = traceID
    }

    var key: RecordStore.Key { RecordStore.Key(kind: definition.kind, id: recordID) }

    /// The record it writes; nil for a deletion.
    var record: CheckedRecord? {
        switch change {
        case .create(let record), .put(let record): record
        case .sync(let record, _): record
        case .delete: nil
        }
    }

    /// What the rule reads of it.
    var mode: RecordRevisionRule.Mode {
        switch change {
        case .create: .create
        case .put(let record): .put(record.body)
        case .delete: .delete
        case .sync(let record, let updatedAt): .sync(LastWriterWins.Change(updatedAt: updatedAt, deleted: record == nil, body: record?.body))
        }
    }

    /// The device's time of the change, stored for the next change's last-writer-wins; nil for a server-side write.
    var clientUpdatedAt: Date? {
        if case .sync(_, let updatedAt) = change { updatedAt } else { nil }
    }
}

/// What a write does to the record it meets, whatever door it came through: the rules of `RecordRoutes` for the
/// server's writes (create stores once per id, put creates or corrects, a deleted record stays deleted) and
/// `LastWriterWins` for a device's. An id belongs to one patient. Pure, so every case is tested without a database.
enum RecordRevisionRule {
    enum Mode: Equatable {
        case create
        case put(JSONValue)
        case delete
        case sync(LastWriterWins.Change)
    }

    enum Decision: Equatable {
        /// A new record, revision 1.
        case insert
        /// The body becomes the record's next revision.
        case revise(revision: Int)
        case delete
        /// The same body from a device, sent later: only the stored device time advances (no revision, no event).
        case refresh
        /// The record stays as it is; the answer says so with `status`.
        case keep(WriteOutcome)
        /// A device's change not applied; the answer carries the stored version.
        case conflict(LastWriterWins.Conflict)
        /// The id belongs to another patient's record.
        case idTaken
        /// A deletion of a record the patient does not have.
        case notFound
        /// A server-side write on a deleted record: deletions are final.
        case deleted
    }

    /// The decision for a write by `patientID` that met `stored` (the record holding its id, if any).
    static func decide(_ mode: Mode, patientID: String, stored: RecordStore.Stored?) -> Decision {
        if let stored, stored.patientID != patientID {
            // A deletion does not tell that another patient's record exists.
            return mode == .delete ? .notFound : .idTaken
        }
        let version = stored?.version
        switch mode {
        case .create:
            guard let version else { return .insert }
            return version.deleted ? .deleted : .keep(.duplicate)
        case .put(let body):
            guard let version else { return .insert }
            if version.deleted { return .deleted }
            return version.body == body ? .keep(.unchanged) : .revise(revision: version.revision + 1)
        case .delete:
            guard let version else { return .notFound }
            return version.deleted ? .keep(.deleted) : .delete
        case .sync(let change):
            switch LastWriterWins.decide(change, stored: version) {
            case .insert: return .insert
            case .revise: return .revise(revision: (version?.revision ?? 0) + 1)
            case .delete: return .delete
            case .refresh: return .refresh
            case .unchanged: return .keep(version?.deleted == true || change.deleted ? .deleted : .unchanged)
            case .conflict(let conflict): return .conflict(conflict)
            }
        }
    }
}

/// The one writer of the `records` table. Any number of writes of any modes, for any patients, go in four kinds of
/// statement whatever their number: the patients' change numbers, the new records, the locked records met, and the
/// revisions, deletions and refreshed device times; then every event, in the order the writes came. Single requests
/// reach it through a group commit (`groupCommit`); an offline upload calls `apply` in its own transaction.
enum RecordWriter {
    /// What became of one write.
    struct Outcome: Sendable {
        let status: WriteOutcome
        /// The record's revision after the write; nil when there is no record.
        let revision: Int?
        /// The event the write announced, or the record's last one when it changed nothing.
        let eventID: UUID?
        /// With a conflict: why, and the version stored.
        var conflict: (reason: LastWriterWins.Conflict, stored: LastWriterWins.Stored)?
        /// The change number of the patient's changes feed the write took, when it changed the record.
        var changeSeq: Int64?
    }

    static func groupCommit(context: ServiceContext) -> GroupCommit<RecordWrite, RecordRoutes.Receipt> {
        GroupCommit(name: "records", context: context, key: { $0.key }, status: { $0.httpStatus.code }) {
            writes, handler in
            try await apply(writes, handler: handler).enumerated().map { index, result in
                result.map { RecordRoutes.Receipt(id: writes[index].recordID, outcome: $0) }
            }
        }
    }

    /// Applies the writes inside the handler's transaction; one result per write, in order. A write's refusal (its id
    /// taken, a record deleted or missing) is its failure and leaves nothing of it behind.
    static func apply(_ writes: [RecordWrite], handler: HandlerContext) async throws -> [Result<Outcome, any Error>] {
        guard !writes.isEmpty else { return [] }
        let store = RecordStore(handler)
        // The patients' change numbers first (the lock order of every writer), one for each write: one that turns out
        // to change nothing leaves a gap in its patient's numbers, which the changes feed allows.
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

        // A write with a record is tried as new first: most are, and a new record needs no lock.
        var firsts: [Int: UUID] = [:]
        var news: [RecordStore.Write] = []
        for (index, write) in writes.enumerated() {
            guard let record = write.record else { continue }
            let eventID = UUID.timeOrdered()
            firsts[index] = eventID
            news.append(
                RecordStore.Write(
                    key: write.key, patientID: write.patientID, revision: 1, bodyText: record.bodyText, observedAt: record.first.observedAt,
                    eventID: eventID, changeSeq: changeSeqs[index], clientUpdatedAt: write.clientUpdatedAt))
        }
        let inserted = try await store.insert(news)
        let met = writes.filter { !inserted.contains($0.key) }
        let stored = Dictionary(try await store.lock(met.map(\.key)).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })

        var results: [Result<Outcome, any Error>] = []
        var revisions: [RecordStore.Write] = []
        var deletions: [RecordStore.Deletion] = []
        var refreshes: [(key: RecordStore.Key, updatedAt: Date)] = []
        var announced: [Announcement] = []
        for (index, write) in writes.enumerated() {
            let changeSeq = changeSeqs[index]
            if inserted.contains(write.key), let eventID = firsts[index], let record = write.record {
                results.append(.success(Outcome(status: .recorded, revision: 1, eventID: eventID, changeSeq: changeSeq)))
                announced.append(Announcement(record.first.event, eventID: eventID, write, revision: 1, onStored: record.first.onStored))
                continue
            }
            let existing = stored[write.key]
            switch RecordRevisionRule.decide(write.mode, patientID: write.patientID, stored: existing) {
            case .insert:
                // Its id was taken when it was inserted, and the record is gone by the lock (a purged tombstone).
                results.append(.failure(HTTPProblem(status: .conflict, error: "the record changed concurrently; retry")))
            case .revise(let revision):
                // The rule revises only a write that carries a record; a defect otherwise fails this write, not the service.
                guard let record = write.record else {
                    results.append(.failure(HTTPError(.internalServerError)))
                    continue
                }
                let payload = record.first.revised(revision)
                let eventID = UUID.timeOrdered()
                revisions.append(
                    RecordStore.Write(
                        key: write.key, patientID: write.patientID, revision: revision, bodyText: record.bodyText,
                        observedAt: payload.observedAt, eventID: eventID, changeSeq: changeSeq, clientUpdatedAt: write.clientUpdatedAt))
                announced.append(Announcement(payload.event, eventID: eventID, write, revision: revision, onStored: payload.onStored))
                results.append(.success(Outcome(status: .corrected, revision: revision, eventID: eventID, changeSeq: changeSeq)))
            case .delete:
                guard let existing, let deletion = write.definition.deletion else {
                    results.append(.failure(HTTPError(.methodNotAllowed)))
                    continue
                }
                var announcement = deletion(write.recordID, Date())
                if case .delete(let announcing?) = write.change { announcement = announcing }
                let eventID = UUID.timeOrdered()
                deletions.append(RecordStore.Deletion(key: write.key, eventID: eventID, changeSeq: changeSeq, clientUpdatedAt: write.clientUpdatedAt))
                announced.append(Announcement(announcement, eventID: eventID, write, revision: existing.version.revision, onStored: nil))
                results.append(.success(Outcome(status: .deleted, revision: existing.version.revision, eventID: eventID, changeSeq: changeSeq)))
            case .refresh:
                if let updatedAt = write.clientUpdatedAt { refreshes.append((write.key, updatedAt)) }
                results.append(.success(Outcome(status: .unchanged, revision: existing?.version.revision, eventID: existing?.lastEventID)))
            case .keep(let status):
                results.append(.success(Outcome(status: status, revision: existing?.version.revision, eventID: existing?.lastEventID)))
            case .conflict(let reason):
                var outcome = Outcome(status: .conflict, revision: existing?.version.revision, eventID: nil)
                outcome.conflict = existing.map { (reason, $0.version) }
                results.append(.success(outcome))
            case .idTaken:
                results.append(.failure(RecordRoutes.idTaken))
            case .notFound:
                results.append(.failure(HTTPProblem(status: .notFound, error: "no such record")))
            case .deleted:
                results.append(.failure(HTTPProblem(status: .conflict, error: "this record was deleted and cannot be changed", violations: [])))
            }
        }
        try await store.revise(revisions)
        try await store.markDeleted(deletions)
        try await store.refreshTimes(refreshes)
        // Each write's event, then what it sets off (an exam report's release), in the order the writes came.
        for announcement in announced {
            try await handler.publish(
                announcement.event, eventID: announcement.eventID, patientID: announcement.stored.patientID, traceID: announcement.stored.traceID)
            try await announcement.onStored?(handler, announcement.stored)
        }
        return results
    }

    /// A write's event, with the id stored beside its row, and what it sets off once published.
    private struct Announcement {
        let event: any EventPayload
        let eventID: UUID
        let stored: StoredRevision
        let onStored: (@Sendable (HandlerContext, StoredRevision) async throws -> Void)?

        init(
            _ event: any EventPayload, eventID: UUID, _ write: RecordWrite, revision: Int,
            onStored: (@Sendable (HandlerContext, StoredRevision) async throws -> Void)?
        ) {
            self.event = event
            self.eventID = eventID
            stored = StoredRevision(write, revision: revision)
            self.onStored = onStored
        }
    }
}

extension StoredRevision {
    init(_ write: RecordWrite, revision: Int) {
        self.init(patientID: write.patientID, recordID: write.recordID, revision: revision, traceID: write.traceID)
    }
}
