import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Each recipient's time zone and quiet hours (`PUT /v1/inbox/preferences`).
struct PreferenceStore: ServiceStore {
    let session: StoreSession

    struct Preferences: Encodable, Sendable {
        let timeZone: String
        let quietHours: Window?
        let updatedAt: Date

        struct Window: Codable, Sendable {
            let from: String
            let to: String
        }
    }

    func save(_ recipient: NotificationStore.Recipient, _ preferences: Preferences) async throws {
        try await session.query(
            """
            INSERT INTO recipient_preferences (recipient_role, recipient_id, time_zone, quiet_from, quiet_to, updated_at)
            VALUES (\(recipient.role.rawValue), \(recipient.id), \(preferences.timeZone), \(preferences.quietHours?.from), \(preferences.quietHours?.to),
                    \(preferences.updatedAt))
            ON CONFLICT (recipient_role, recipient_id) DO UPDATE SET time_zone = excluded.time_zone, quiet_from = excluded.quiet_from,
                quiet_to = excluded.quiet_to, updated_at = excluded.updated_at
            """)
    }

    func preferences(of recipient: NotificationStore.Recipient) async throws -> Preferences? {
        try await session.fetchAll(
            """
            SELECT time_zone, quiet_from, quiet_to, updated_at FROM recipient_preferences
            WHERE recipient_role = \(recipient.role.rawValue) AND recipient_id = \(recipient.id)
            """, as: (String, String?, String?, Date).self
        ).first.map { zone, from, to, updated in
            Preferences(timeZone: zone, quietHours: from.flatMap { from in to.map { .init(from: from, to: $0) } }, updatedAt: updated)
        }
    }

    /// The recipient's time zone, when they set one.
    func timeZone(of recipient: NotificationStore.Recipient) async throws -> TimeZone? {
        try await preferences(of: recipient).flatMap { TimeZone(identifier: $0.timeZone) }
    }

    /// The quiet hours of those of `recipients` who set them, in one query.
    func quietHours(of recipients: Set<NotificationStore.Recipient>) async throws -> [NotificationStore.Recipient: QuietHours] {
        guard !recipients.isEmpty else { return [:] }
        let list = Array(recipients)
        let rows = try await session.fetchAll(
            """
            SELECT p.recipient_role, p.recipient_id, p.time_zone, p.quiet_from, p.quiet_to FROM recipient_preferences p
            JOIN unnest(\(list.map(\.role.rawValue)), \(list.map(\.id))) AS r(role, id) ON p.recipient_role = r.role AND p.recipient_id = r.id
            WHERE p.quiet_from IS NOT NULL AND p.quiet_to IS NOT NULL
            """, as: (String, String, String, String, String).self)
        var found: [NotificationStore.Recipient: QuietHours] = [:]
        for (role, id, zone, from, to) in rows {
            guard let role = RecipientRole(rawValue: role), let zone = TimeZone(identifier: zone), let from = LocalTime(from), let to = LocalTime(to)
            else { continue }
            found[.init(id: id, role: role)] = QuietHours(from: from, to: to, timeZone: zone)
        }
        return found
    }
}
