import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging
import PostgresNIO

/// The SQL of notification-service's `alerts` table: what the handler writes inside an event's transaction (an
/// instance on that transaction), and what the inbox reads.
struct AlertStore: TransactionalStore {
    let connection: PostgresConnection
    let logger: Logger

    /// Inserts the alert unless its source event already raised one; true when it was inserted.
    func insert(_ alert: AlertRaised, patientID: String?) async throws -> Bool {
        try await !connection.fetchAll(
            """
            INSERT INTO alerts (alert_id, source_event_id, about_id, patient_id, kind, severity, category, message_key, raised_at)
            VALUES (\(alert.alertID), \(alert.sourceEventID), \(alert.aboutID), \(patientID), \(alert.kind), \(alert.severity.rawValue),
                    \(alert.category), \(alert.messageKey), \(alert.raisedAt))
            ON CONFLICT (source_event_id) DO NOTHING RETURNING 1
            """, as: Int.self, logger: logger
        ).isEmpty
    }

    /// Withdraws the standing alerts about `about`; returns their ids.
    func withdraw(about: UUID, reason: AlertWithdrawalReason) async throws -> [UUID] {
        try await connection.fetchAll(
            """
            UPDATE alerts SET withdrawn_at = now(), withdrawal_reason = \(reason.rawValue)
            WHERE about_id = \(about) AND withdrawn_at IS NULL RETURNING alert_id
            """, as: UUID.self, logger: logger)
    }

    /// One alert of the inbox.
    struct Alert: Encodable, Sendable {
        let alertId: UUID
        let sourceEventId: UUID
        let aboutId: UUID?
        let kind: String
        let severity: String
        let category: String
        let messageKey: String
        let raisedAt: Date
        let read: Bool
        let withdrawn: String?
    }

    /// A page of the patient's inbox, newest first.
    static func inbox(
        patientID: String, includeWithdrawn: Bool, page: PageRequest, on client: PostgresClient, logger: Logger
    ) async throws -> Page<Alert> {
        let after = try page.timeAndUUID()
        let rows = try await client.fetchAll(
            """
            SELECT alert_id, source_event_id, about_id, kind, severity, category, message_key, raised_at, read_at IS NOT NULL, withdrawal_reason
            FROM alerts WHERE patient_id = \(patientID) AND (\(includeWithdrawn) OR withdrawn_at IS NULL)
              AND (\(after == nil) OR (raised_at, alert_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY raised_at DESC, alert_id DESC LIMIT \(page.limit + 1)
            """, as: (UUID, UUID, UUID?, String, String, String, String, Date, Bool, String?).self, logger: logger)
        let alerts = rows.map {
            Alert(alertId: $0.0, sourceEventId: $0.1, aboutId: $0.2, kind: $0.3, severity: $0.4, category: $0.5, messageKey: $0.6,
                  raisedAt: $0.7, read: $0.8, withdrawn: $0.9)
        }
        return Page(rows: alerts, request: page) { .init(date: $0.raisedAt, id: $0.alertId) }
    }
}
