import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging
import PostgresNIO

/// Each recipient's time zone and quiet hours (`PUT /v1/inbox/preferences`).
struct PreferenceStore: TransactionalStore {
    let connection: PostgresConnection
    let logger: Logger

    struct Preferences: Encodable, Sendable {
        let timeZone: String
        let quietHours: Window?
        let updatedAt: Date

        struct Window: Encodable, Sendable {
            let from: String
            let to: String
        }
    }

    func save(_ recipient: NotificationStore.Recipient, _ preferences: Preferences) async throws {
        try await connection.query(
            """
            INSERT INTO recipient_preferences (recipient_role, recipient_id, time_zone, quiet_from, quiet_to, updated_at)
            VALUES (\(recipient.role.rawValue), \(recipient.id), \(preferences.timeZone), \(preferences.quietHours?.from), \(preferences.quietHours?.to),
                    \(preferences.updatedAt))
            ON CONFLICT (recipient_role, recipient_id) DO UPDATE SET time_zone = excluded.time_zone, quiet_from = excluded.quiet_from,
                quiet_to = excluded.quiet_to, updated_at = excluded.updated_at
            """, logger: logger)
    }

    func preferences(of recipient: NotificationStore.Recipient) async throws -> Preferences? {
        try await connection.fetchAll(
            """
            SELECT time_zone, quiet_from, quiet_to, updated_at FROM recipient_preferences
            WHERE recipient_role = \(recipient.role.rawValue) AND recipient_id = \(recipient.id)
            """, as: (String, String?, String?, Date).self, logger: logger
        ).first.map { zone, from, to, updated in
            Preferences(timeZone: zone, quietHours: from.flatMap { from in to.map { .init(from: from, to: $0) } }, updatedAt: updated)
        }
    }

    /// The recipient's time zone, when they set one.
    func timeZone(of recipient: NotificationStore.Recipient) async throws -> TimeZone? {
        try await preferences(of: recipient).flatMap { TimeZone(identifier: $0.timeZone) }
    }

    /// The recipient's quiet hours, when they set them.
    func quietHours(of recipient: NotificationStore.Recipient) async throws -> QuietHours? {
        guard let preferences = try await preferences(of: recipient), let window = preferences.quietHours,
            let zone = TimeZone(identifier: preferences.timeZone), let from = LocalTime(window.from), let to = LocalTime(window.to)
        else { return nil }
        return QuietHours(from: from, to: to, timeZone: zone)
    }
}
