public import CaretideSchemas
public import CaretideStore
public import Foundation
import Logging
public import PostgresNIO

/// A service's copy of care-team grants: written by ingest-service in the transaction that publishes the grant, and
/// by every other service that serves patient data from the `caretide.care-team` topic.
public struct CareTeamStore: ServiceStore {
    public let session: StoreSession

    public init(session: StoreSession) {
        self.session = session
    }

    /// Records a grant (or a new expiry), unless a newer change of the same pair is already applied.
    public func apply(_ grant: CareTeamGranted, patientID: String, eventID: UUID)
        async throws
    {
        try await session.query(
            """
            INSERT INTO care_team_grants (patient_id, consultant_id, granted_at, expires_at, revoked_at, changed_at, last_event_id)
            VALUES (\(patientID), \(grant.consultantID), \(grant.grantedAt), \(grant.expiresAt), NULL, \(grant.grantedAt), \(eventID))
            ON CONFLICT (patient_id, consultant_id) DO UPDATE
                SET granted_at = excluded.granted_at, expires_at = excluded.expires_at, revoked_at = NULL,
                    changed_at = excluded.changed_at, last_event_id = excluded.last_event_id
                WHERE care_team_grants.changed_at <= excluded.changed_at
            """)
    }

    /// Records a revocation, unless a newer change of the same pair is already applied. A revocation of a pair never
    /// granted is kept too: a grant older than it, arriving later, stays revoked.
    public func apply(_ revocation: CareTeamRevoked, patientID: String, eventID: UUID)
        async throws
    {
        try await session.query(
            """
            INSERT INTO care_team_grants (patient_id, consultant_id, granted_at, expires_at, revoked_at, changed_at, last_event_id)
            VALUES (\(patientID), \(revocation.consultantID), \(revocation.revokedAt), NULL, \(revocation.revokedAt), \(revocation.revokedAt), \(eventID))
            ON CONFLICT (patient_id, consultant_id) DO UPDATE
                SET revoked_at = excluded.revoked_at, changed_at = excluded.changed_at, last_event_id = excluded.last_event_id
                WHERE care_team_grants.changed_at <= excluded.changed_at
            """)
    }

    /// Whether the pair has a grant not revoked (expired or not), locking it for the rest of the transaction.
    public func lockUnrevoked(patientID: String, consultantID: String) async throws -> Bool {
        try await !session.fetchAll(
            """
            SELECT 1 FROM care_team_grants WHERE patient_id = \(patientID) AND consultant_id = \(consultantID) AND revoked_at IS NULL
            FOR UPDATE
            """, as: Int.self
        ).isEmpty
    }

    /// A grant as the patient sees it.
    public struct Grant: Codable, Sendable, Equatable {
        public let consultantId: String
        public let grantedAt: Date
        public let expiresAt: Date?

        public init(consultantId: String, grantedAt: Date, expiresAt: Date?) {
            self.consultantId = consultantId
            self.grantedAt = grantedAt
            self.expiresAt = expiresAt
        }
    }

    /// A page of the patient's grants in force now, oldest first.
    public func activeGrants(patientID: String, page: PageRequest) async throws -> Page<Grant> {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        let rows = try await session.fetchAll(
            """
            SELECT consultant_id, granted_at, expires_at FROM care_team_grants
            WHERE patient_id = \(patientID) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
              AND (\(after == nil) OR (granted_at, consultant_id) > (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY granted_at, consultant_id LIMIT \(page.limit + 1)
            """, as: (String, Date, Date?).self)
        return Page(rows: rows.map { Grant(consultantId: $0.0, grantedAt: $0.1, expiresAt: $0.2) }, request: page) {
            PageRequest.Cursor(date: $0.grantedAt, id: $0.consultantId)
        }
    }
}

extension CareTeamStore {
    /// Whether the pair has a grant in force now.
    public func isActive(patientID: String, consultantID: String) async throws -> Bool {
        try await !session.fetchAll(
            """
            SELECT 1 FROM care_team_grants
            WHERE patient_id = \(patientID) AND consultant_id = \(consultantID) AND revoked_at IS NULL
              AND (expires_at IS NULL OR expires_at > now())
            """, as: Int.self
        ).isEmpty
    }

    /// The consultants whose grant from the patient is in force now, in the caller's transaction (who hears about
    /// the patient's findings).
    public func activeConsultants(patientID: String) async throws -> [String] {
        try await activeConsultants(patientIDs: [patientID])[patientID] ?? []
    }

    /// The care teams of many patients in one statement: each patient's consultants whose grant is in force, by id.
    public func activeConsultants(patientIDs: [String]) async throws -> [String: [String]] {
        guard !patientIDs.isEmpty else { return [:] }
        var teams: [String: [String]] = [:]
        for try await (patientID, consultantID) in try await session.execute(ActiveConsultants(patientIDs: patientIDs)) {
            teams[patientID, default: []].append(consultantID)
        }
        return teams
    }

    /// Prepared: notification-service asks it for every batch of alerts.
    struct ActiveConsultants: PostgresPreparedStatement {
        static let sql = """
            SELECT patient_id, consultant_id FROM care_team_grants
            WHERE patient_id = ANY($1::text[]) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
            ORDER BY patient_id, consultant_id
            """
        static let name = "caretide.active-consultants"
        typealias Row = (String, String)
        let patientIDs: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(patientIDs)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (String, String) { try row.decode((String, String).self) }
    }
}

/// `CareTeamGrants` answered from the service's own projection.
struct DatabaseCareTeamGrants: CareTeamGrants {
    let database: Database
    let logger: Logger

    func isActive(patientID: String, consultantID: String) async throws -> Bool {
        try await CareTeamStore(database: database, logger: logger).isActive(
            patientID: patientID, consultantID: consultantID)
    }
}

/// Keeps the projection of grants from `caretide.care-team`, beside the service's own handler: grant events are
/// applied here, everything else goes to the service's handler (set-based when it has one).
struct CareTeamProjectingHandler: EventHandler {
    let service: any EventHandler

    var transactionTimeout: Duration? { service.transactionTimeout }
    var batchWindow: Duration? { service.batchWindow }

    func needsNothing(_ event: ValidatedEvent) -> Bool {
        switch event.eventType {
        case .careTeamGranted, .careTeamRevoked: false
        default: service.needsNothing(event)
        }
    }

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        if try await project(event, context: context) { return }
        try await service.handle(event, context: context)
    }

    func handle(batch: [ValidatedEvent], context: HandlerContext) async throws {
        var others: [ValidatedEvent] = []
        for event in batch where try await !project(event, context: context) { others.append(event) }
        guard !others.isEmpty else { return }
        try await service.handle(batch: others, context: context)
    }

    /// Applies a care-team event; false for any other event.
    private func project(_ event: ValidatedEvent, context: HandlerContext) async throws -> Bool {
        switch event.eventType {
        case .careTeamGranted:
            try await CareTeamStore(context).apply(
                try event.payload(CareTeamGranted.self), patientID: try patient(of: event), eventID: event.eventID)
            return true
        case .careTeamRevoked:
            try await CareTeamStore(context).apply(
                try event.payload(CareTeamRevoked.self), patientID: try patient(of: event), eventID: event.eventID)
            return true
        default:
            return false
        }
    }

    private func patient(of event: ValidatedEvent) throws -> String {
        guard let patientID = event.patientID else { throw UnprocessableEvent("a care-team event names no patient") }
        return patientID
    }
}
