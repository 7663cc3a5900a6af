import CaretideIdentity
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Synchronization

/// Who an audit entry names as acting: a caller with a verified identity, or a viewer outside Caretide known only by
/// the share whose code they typed (their name and address stay with the share's openings, not in the trail).
enum AuditAgent: Sendable {
    case identity(Identity)
    case outsideViewer(shareID: UUID)

    /// The role the trail gives an outside viewer: not a `Role`, as no token can carry it.
    static let outsideViewerRole = "outsideViewer"

    var subject: String {
        switch self {
        case .identity(let identity): identity.subject
        case .outsideViewer(let shareID): "outside-share:\(shareID.uuidString.lowercased())"
        }
    }

    var role: String {
        switch self {
        case .identity(let identity): identity.role.rawValue
        case .outsideViewer: Self.outsideViewerRole
        }
    }

    var institutionID: String? {
        switch self {
        case .identity(let identity): identity.institutionID
        case .outsideViewer: nil
        }
    }
}

/// One audited request: who, what, whose, the outcome.
struct AuditEntry: Sendable {
    let agent: AuditAgent
    let access: Access
    /// The route's method and pattern, e.g. GET and `/v1/patients/:patientId/assessments`.
    let method: HTTPRequest.Method
    let route: String
    let patientID: String?
    let owner: String?
    let outcome: AuditOutcome
    let status: Int
    let requestID: String
    /// The entry's id, when something else names it (an outside viewer's opening); else a new one when recorded.
    var auditID: UUID? = nil

    init(
        identity: Identity, access: Access, method: HTTPRequest.Method, route: String, patientID: String?, owner: String?,
        outcome: AuditOutcome, status: Int, requestID: String
    ) {
        self.init(
            agent: .identity(identity), access: access, method: method, route: route, patientID: patientID, owner: owner, outcome: outcome,
            status: status, requestID: requestID)
    }

    init(
        agent: AuditAgent, access: Access, method: HTTPRequest.Method, route: String, patientID: String?, owner: String?, outcome: AuditOutcome,
        status: Int, requestID: String, auditID: UUID? = nil
    ) {
        self.agent = agent
        self.access = access
        self.method = method
        self.route = route
        self.patientID = patientID
        self.owner = owner
        self.outcome = outcome
        self.status = status
        self.requestID = requestID
        self.auditID = auditID
    }

    var operation: String { "\(method.rawValue) \(route)" }

    var action: AuditAction {
        switch access {
        case .patientData(.read), .patientData(.export), .photoFiles, .outsideViewer: .read
        case .patientData(.write), .patientData(.advise), .patientData(.record), .institutionResults: .write
        // Reading a thread reads what the patient and the care team wrote; composing and marking read write.
        case .patientData(.converse): method == .get ? .read : .write
        // Asking for an erasure writes (it deletes everything); reading its progress reads.
        case .patientData(.erase): method == .get ? .read : .write
        // Reading one's inbox reads what it says about patients; marking it read or acknowledged writes.
        case .ownInbox: method == .get ? .read : .write
        // Reading one's own access log or care team is a read; granting and revoking are consent.
        case .patientData(.manage): method == .get ? .read : .consent
        case .consultantWorkspace, .clinicalTools, .referenceData, .calculators: .use
        case .operatorFeeds, .broadcasts: .write
        case .deliveryChannels, .ontologyUpdates: method == .get ? .read : .write
        }
    }

    /// The same access with its outcome.
    func with(_ outcome: AuditOutcome, status: Int) -> AuditEntry {
        AuditEntry(
            agent: agent, access: access, method: method, route: route, patientID: patientID, owner: owner, outcome: outcome, status: status,
            requestID: requestID, auditID: auditID)
    }
}

/// Records audit entries durably before the request they describe is answered: in the service's `access_audit`
/// table and, through the outbox in the same transaction, as `access.recorded` events on `caretide.audit`.
///
/// Entries that arrive while a write is in flight are written together in the next transaction (a group commit,
/// `GroupCommitter`), so under load many requests share one transaction instead of each adding its own. A batch that
/// cannot be written fails each of its requests (a read is then answered 503).
struct AuditTrail: Sendable {
    private let committer: GroupCommitter<AuditEntry, Void>

    init(database: Database, codec: EventCodec, producer: String, logger: Logger, timeout: Duration, metrics: ServiceMetrics) {
        committer = GroupCommitter(name: "audit", metrics: metrics, maximumBatch: Self.maximumBatch) { entries in
            do {
                try await database.transaction(timeout: timeout) { connection in
                    try await Self.insert(entries, codec: codec, producer: producer, on: connection, logger: logger)
                }
                return Array(repeating: .success(()), count: entries.count)
            } catch {
                logger.error("could not record audit entries", metadata: [LogKey.count: "\(entries.count)", LogKey.errorType: "\(type(of: error))"])
                return Array(repeating: .failure(error), count: entries.count)
            }
        }
    }

    /// Entries a transaction takes at most: the statement binds each column as one array, so a batch has no cost per
    /// entry beyond its row; the bound only keeps one transaction from growing without end under a burst.
    static let maximumBatch = 1_000

    /// Returns once the entry is committed; throws when it could not be (the caller answers 503 for a read).
    func record(_ entry: AuditEntry) async throws {
        try await committer.submit(entry)
    }

    /// Writes entries and their `access.recorded` events on a connection inside the caller's transaction, after the
    /// caller's own events `earlier` (enqueued in the same statement).
    static func insert(
        _ entries: [AuditEntry], after earlier: [Outbox.Entry] = [], codec: EventCodec, producer: String, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let (rows, events) = try rows(entries, codec: codec, producer: producer)
        try await Outbox.enqueue(earlier + events, ordering: .perKey, alongside: rows, on: connection, logger: logger)
    }

    /// The rows of `entries` and their events, to be written in one statement.
    static func rows(_ entries: [AuditEntry], codec: EventCodec, producer: String) throws -> (AuditRows, [Outbox.Entry]) {
        let now = Date()
        let events = entries.map { entry in
            EventEnvelope(
                producer: producer, patientID: entry.patientID, traceID: entry.requestID,
                payload: AccessRecorded(
                    auditID: entry.auditID ?? UUID.timeOrdered(), recordedAt: now, subject: entry.agent.subject, role: entry.agent.role,
                    institutionID: entry.agent.institutionID, action: entry.action, operation: entry.operation, owner: entry.owner,
                    outcome: entry.outcome, status: entry.status, requestID: entry.requestID))
        }
        return (AuditRows(events: events), try events.map { try Outbox.Entry($0, codec: codec) })
    }
}

/// Reads the access log the audit trail writes.
struct AccessLogStore: ServiceStore {
    let session: StoreSession

    /// One entry of a patient's access log.
    struct LogEntry: Encodable, Sendable {
        let auditId: UUID
        let recordedAt: Date
        let subject: String
        let role: String
        let institutionId: String?
        let action: String
        let operation: String
        let outcome: String
        let status: Int
        /// For an outside viewer's attempt to open a share: the name they gave and their address.
        var viewer: OutsideViewer? = nil
    }

    /// A page of who accessed the patient's data held by this service, newest first; outside viewers' attempts with
    /// their names and addresses from `outsideViewers`.
    func accessLog(patientID: String, page: PageRequest, outsideViewers: (any OutsideViewerDirectory)?) async throws -> Page<LogEntry> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT audit_id, recorded_at, subject, role, institution_id, action, operation, outcome, status FROM access_audit
            WHERE patient_id = \(patientID) AND (\(after == nil) OR (recorded_at, audit_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY recorded_at DESC, audit_id DESC LIMIT \(page.limit + 1)
            """, as: (UUID, Date, String, String, String?, String, String, String, Int).self)
        var entries = rows.map {
            LogEntry(
                auditId: $0.0, recordedAt: $0.1, subject: $0.2, role: $0.3, institutionId: $0.4, action: $0.5, operation: $0.6, outcome: $0.7,
                status: $0.8)
        }
        let attempts = entries.filter { $0.role == AuditAgent.outsideViewerRole }.map(\.auditId)
        if let outsideViewers, !attempts.isEmpty {
            let viewers = try await outsideViewers.viewers(attempts, patientID: patientID, session: session)
            for index in entries.indices { entries[index].viewer = viewers[entries[index].auditId] }
        }
        return Page(rows: entries, request: page) { .init(date: $0.recordedAt, id: $0.auditId) }
    }
}

/// Audit rows, written in the statement that enqueues their events (`Outbox.enqueue(_:ordering:alongside:on:logger:)`),
/// so recording costs no round trip of its own. Absent values travel as '' (PostgresNIO binds no arrays of optionals)
/// and `nullif` turns them back; the outbox's parameters are $1 to $8, these $9 to $20.
struct AuditRows: OutboxSideInsert {
    static let sql = """
        INSERT INTO access_audit (audit_id, recorded_at, subject, role, institution_id, action, operation, patient_id, owner, outcome, status,
                                  request_id)
        SELECT audit_id, recorded_at, subject, role, nullif(institution_id, ''), action, operation, nullif(patient_id, ''), nullif(owner, ''),
               outcome, status, request_id
        FROM unnest($9::uuid[], $10::timestamptz[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
                    $18::text[], $19::int8[], $20::text[])
             AS t(audit_id, recorded_at, subject, role, institution_id, action, operation, patient_id, owner, outcome, status, request_id)
        """
    let events: [EventEnvelope<AccessRecorded>]

    func appendBindings(to bindings: inout PostgresBindings) {
        bindings.append(events.map(\.payload.auditID))
        bindings.append(events.map(\.payload.recordedAt))
        bindings.append(events.map(\.payload.subject))
        bindings.append(events.map(\.payload.role))
        bindings.append(events.map { $0.payload.institutionID ?? "" })
        bindings.append(events.map(\.payload.action.rawValue))
        bindings.append(events.map(\.payload.operation))
        bindings.append(events.map { $0.patientID ?? "" })
        bindings.append(events.map { $0.payload.owner ?? "" })
        bindings.append(events.map(\.payload.outcome.rawValue))
        bindings.append(events.map { Int64($0.payload.status) })
        bindings.append(events.map(\.payload.requestID))
    }
}

/// The audit entry of the request in hand, for a write that records it in its own transaction: then the write and
/// its audit record commit together, and the request needs no second transaction.
public final class RequestAudit: Sendable {
    let entry: AuditEntry
    private let recorded = Mutex(false)

    init(entry: AuditEntry) { self.entry = entry }

    /// Marks the entry written, in the transaction about to commit.
    func markRecorded() { recorded.withLock { $0 = true } }
    /// Forgets the mark of a transaction that rolled back.
    func clearRecorded() { recorded.withLock { $0 = false } }
    var isRecorded: Bool { recorded.withLock { $0 } }

    /// The entry with the outcome of the write.
    func entry(status: Int) -> AuditEntry { entry.with(.allowed, status: status) }
}
