import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of notification-service's `notifications` table, every recipient's inbox: what the handler writes inside
/// an event's transaction (an instance on that transaction), and what the inbox routes read and mark.
struct NotificationStore: ServiceStore {
    let session: StoreSession

    /// One notification as stored: the event it is published as, and what only the inbox shows (`text`).
    struct Row: Sendable {
        let alert: AlertRaised
        let patientID: String?
        let subjectID: String?
        /// Free text (a consultant's advice): kept for the inbox, never published or logged.
        let text: String?
        /// Where the notification leads (a shared report's signed link): kept for the inbox only, since the link is
        /// meant for its recipient alone.
        let link: String?

        /// A notification about `topic` for `recipient`, caused by `source` (an event, a request, a round) and about
        /// `about` (the finding, the reading, the thread, …). Its id is made from its source and its recipient, never
        /// drawn: the same source notifying the same recipient again (a redelivered event, a retried round) is the
        /// same notification, stored once, and a consumer of `caretide.alerts` de-duplicates on it.
        /// - Parameters:
        ///   - subjectID: what the inbox groups it under (an exam report's subject, the sender of a message).
        ///   - text: free text (a consultant's advice, a broadcast): kept for the inbox, never published or logged.
        ///   - link: where it leads (a shared report's signed link), for the inbox only.
        ///   - outOfRangeCount, reading, late: the details of a report ready, an area's reading, a reminder.
        init(
            _ topic: AlertTopic, severity: Severity, source: UUID, about: UUID, to recipient: Recipient, patientID: String?, raisedAt: Date,
            subjectID: String? = nil, text: String? = nil, link: String? = nil, outOfRangeCount: Int? = nil,
            reading: (areaCode: String, value: Double, peakAt: Date?)? = nil, late: Bool? = nil
        ) {
            var alert = AlertRaised(
                alertID: .named("notification/\(source.uuidString.lowercased())/\(recipient.role.rawValue)/\(recipient.id)"), topic: topic,
                severity: severity, sourceEventID: source, aboutID: about, raisedAt: raisedAt, recipientID: recipient.id,
                recipientRole: recipient.role)
            alert.outOfRangeCount = outOfRangeCount
            alert.areaCode = reading?.areaCode
            alert.value = reading?.value
            alert.peakAt = reading?.peakAt
            alert.late = late
            self.alert = alert
            self.patientID = patientID
            self.subjectID = subjectID
            self.text = text
            self.link = link
        }

        var recipient: Recipient { Self.recipient(of: alert, patientID: patientID) }

        /// Who an alert is for: its recipient, or (an alert from before recipients) its patient.
        static func recipient(of alert: AlertRaised, patientID: String?) -> Recipient {
            Recipient(id: alert.recipientID ?? patientID ?? "", role: alert.recipientRole ?? .patient)
        }
    }

    /// Inserts each notification unless its source already notified that recipient; returns those inserted. One
    /// statement for any number (a reading of an area with many subscribers): absent values travel as sentinels
    /// (`''`, -1, NaN, the epoch) that `nullif` turns back, since PostgresNIO binds no arrays of optionals.
    func insert(_ rows: [Row]) async throws -> [Row] {
        guard !rows.isEmpty else { return [] }
        let alerts = rows.map(\.alert)
        let epoch = Date(timeIntervalSince1970: 0)
        let ids: [UUID] = try await session.fetchAll(
            """
            INSERT INTO notifications (notification_id, recipient_id, recipient_role, patient_id, kind, severity, category, message_key, text,
                                       out_of_range_count, area_code, value, peak_at, about_id, subject_id, source_event_id, created_at, link)
            SELECT id, recipient, role, nullif(patient, ''), kind, severity, category, message_key, nullif(text, ''), nullif(count, -1),
                   nullif(area, ''), nullif(value, 'NaN'), nullif(peak, \(epoch)), about, nullif(subject, ''), source, created, nullif(link, '')
            FROM unnest(\(alerts.map(\.alertID)), \(rows.map(\.recipient.id)), \(rows.map(\.recipient.role.rawValue)), \(rows.map { $0.patientID ?? "" }),
                        \(alerts.map(\.kind)), \(alerts.map(\.severity.rawValue)), \(alerts.map(\.category)), \(alerts.map(\.messageKey)),
                        \(rows.map { $0.text ?? "" }), \(alerts.map { Int64($0.outOfRangeCount ?? -1) }), \(alerts.map { $0.areaCode ?? "" }),
                        \(alerts.map { $0.value ?? .nan }), \(alerts.map { $0.peakAt ?? epoch }), \(alerts.map(\.aboutID)), \(rows.map { $0.subjectID ?? "" }),
                        \(alerts.map(\.sourceEventID)), \(alerts.map(\.raisedAt)), \(rows.map { $0.link ?? "" }))
                 AS t(id, recipient, role, patient, kind, severity, category, message_key, text, count, area, value, peak, about, subject, source, created,
                      link)
            ON CONFLICT DO NOTHING RETURNING notification_id
            """, as: UUID.self)
        let inserted = Set(ids)
        return rows.filter { inserted.contains($0.alert.alertID) }
    }

    /// Of `recipients`, those who already have a standing notification about the subject (the patient, its kind and
    /// category) at a severity alert fatigue counts (`AlertBatch.fatigueSeverities`), raised on their own local day
    /// (their time zone, UTC until they set one): alert fatigue allows one such alert per recipient, kind and day
    /// unless the category changes (`NotificationHandler.notify`).
    func alertedToday(_ recipients: [Recipient], about subject: AlertBatch.Subject) async throws -> Set<Recipient> {
        Set(try await alertedToday(recipients.map { AlertBatch.Alerted(recipient: $0, subject: subject) }).map(\.recipient))
    }

    /// Of the pairs asked, those alerted today: `alertedToday(_:about:)` for many subjects in one statement.
    func alertedToday(_ asked: [AlertBatch.Alerted]) async throws -> Set<AlertBatch.Alerted> {
        guard !asked.isEmpty else { return [] }
        return Set(try await session.execute(AlertedToday(asked: asked)).collectAll().compactMap { $0 })
    }

    /// Prepared: every alert of severity attention asks it. Each recipient's notifications are looked up through
    /// `notifications_fatigue`, an index of the five columns asked (a LATERAL subquery with a LIMIT stays a nested
    /// loop): a prepared statement's generic plan does not know how few recipients the arrays hold, and as a join it
    /// chose to scan the whole table; with only the inbox's index it walked all of `notifications_about` instead, as it
    /// did at equal cost before the table's first ANALYZE until that index asked for `about_id IS NOT NULL` (migration 18).
    struct AlertedToday: PostgresPreparedStatement {
        static let sql = """
            SELECT r.role, r.id, r.patient, r.kind, r.category
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS r(role, id, patient, kind, category)
            LEFT JOIN recipient_preferences p ON p.recipient_role = r.role AND p.recipient_id = r.id
            CROSS JOIN LATERAL (
                SELECT 1 FROM notifications n
                WHERE n.recipient_id = r.id AND n.recipient_role = r.role AND n.created_at > now() - interval '2 days'
                  AND n.patient_id = r.patient AND n.kind = r.kind AND n.category = r.category AND n.withdrawn_at IS NULL
                  AND n.severity = ANY($6::text[])
                  AND (n.created_at AT TIME ZONE coalesce(p.time_zone, 'UTC'))::date = (now() AT TIME ZONE coalesce(p.time_zone, 'UTC'))::date
                LIMIT 1) AS alerted
            """
        static let name = "notification.alerted-today"
        typealias Row = AlertBatch.Alerted?
        let asked: [AlertBatch.Alerted]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(asked.map(\.recipient.role.rawValue))
            bindings.append(asked.map(\.recipient.id))
            bindings.append(asked.map(\.subject.patientID))
            bindings.append(asked.map(\.subject.kind))
            bindings.append(asked.map(\.subject.category))
            bindings.append(AlertBatch.fatigueSeverities.map(\.rawValue))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> AlertBatch.Alerted? {
            var columns = RowReader(row)
            let role = RecipientRole(rawValue: try columns.next())
            let id: String = try columns.next()
            let subject = AlertBatch.Subject(patientID: try columns.next(), kind: try columns.next(), category: try columns.next())
            return role.map { AlertBatch.Alerted(recipient: Recipient(id: id, role: $0), subject: subject) }
        }
    }

    /// Withdraws the standing notifications about `about` (an assessment or flag), or about the subject `subjectID`
    /// (an exam report); returns each with its recipient.
    func withdraw(about: UUID? = nil, subjectID: String? = nil, reason: AlertWithdrawalReason) async throws -> [Withdrawn] {
        Self.withdrawn(
            try await session.fetchAll(
                """
                UPDATE notifications SET withdrawn_at = now(), withdrawal_reason = \(reason.rawValue)
                WHERE withdrawn_at IS NULL AND (about_id = \(about) OR subject_id = \(subjectID))
                RETURNING notification_id, recipient_id, recipient_role, patient_id
                """, as: WithdrawnRow.self))
    }

    /// Withdraws the patient's standing notifications and those about them to others.
    func withdrawEverything(of patientID: String, reason: AlertWithdrawalReason) async throws -> [Withdrawn] {
        Self.withdrawn(
            try await session.fetchAll(
                """
                UPDATE notifications SET withdrawn_at = now(), withdrawal_reason = \(reason.rawValue)
                WHERE withdrawn_at IS NULL AND (patient_id = \(patientID) OR (recipient_role = 'patient' AND recipient_id = \(patientID)))
                RETURNING notification_id, recipient_id, recipient_role, patient_id
                """, as: WithdrawnRow.self))
    }

    /// A withdrawn notification, its recipient and the patient it was about.
    typealias Withdrawn = (id: UUID, recipient: Recipient, patientID: String?)
    private typealias WithdrawnRow = (UUID, String, String, String?)

    private static func withdrawn(_ rows: [WithdrawnRow]) -> [Withdrawn] {
        rows.map { ($0.0, Recipient(id: $0.1, role: RecipientRole(rawValue: $0.2) ?? .patient), $0.3) }
    }
}

extension NotificationStore {
    /// Whose inbox: the token's subject in its role.
    struct Recipient: Sendable, Hashable {
        let id: String
        let role: RecipientRole
    }

    /// One notification of an inbox.
    struct Notification: Encodable, Sendable {
        let notificationId: UUID
        let patientId: String?
        let kind: String
        let severity: String
        let category: String
        let messageKey: String
        let text: String?
        let outOfRangeCount: Int?
        let areaCode: String?
        let value: Double?
        let peakAt: Date?
        let aboutId: UUID?
        let sourceEventId: UUID
        let createdAt: Date
        let read: Bool
        let acknowledged: Bool
        let withdrawn: String?
        /// A shared report's signed link (`reportShared`), for the consultant it was shared with.
        let link: String?
        /// The notification's title and sentence in the reader's language (`InboxWords`), so an app need not ship a
        /// string for each message key.
        var title: String? = nil
        var body: String? = nil

        /// With its title and sentence in `texts`' language: a category's own title and sentence if it has them (a
        /// broadcast's activity is not health information), else the kind's.
        func worded(_ texts: TipTexts) -> Notification {
            var worded = self
            worded.title = texts.text("inbox.\(kind).\(category).title") ?? texts.text("inbox.\(kind).title")
            worded.body = texts.text("inbox.\(kind).\(category).body") ?? texts.text("inbox.\(kind).body")
            return worded
        }
    }

    /// Which of an inbox's notifications a page lists.
    struct InboxQuery: Sendable {
        var includeWithdrawn = false
        var unreadOnly = false
        /// Only these kinds (`bloodPressure`, `careTracking`, `examResultReady`, `uvIndex`, …); empty for every kind.
        var kinds: [String] = []
        /// Only notifications created in it.
        var period = Period.always
    }

    /// A page of the recipient's inbox, newest first. A consultant sees (and marks) only notifications about patients
    /// whose grant is in force now: a revoked grant takes what the consultant was told with it.
    func inbox(
        _ recipient: Recipient, query: InboxQuery, page: PageRequest
    ) async throws -> Page<Notification> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT notification_id, patient_id, kind, severity, category, message_key, text, out_of_range_count, area_code, value, peak_at,
                   about_id, source_event_id, created_at, read_at IS NOT NULL, acknowledged_at IS NOT NULL, withdrawal_reason, link
            FROM notifications n
            WHERE recipient_role = \(recipient.role.rawValue) AND recipient_id = \(recipient.id)
              AND (\(query.includeWithdrawn) OR withdrawn_at IS NULL) AND (NOT \(query.unreadOnly) OR read_at IS NULL)
              AND (\(recipient.role != .consultant) OR grant_in_force(n.patient_id, \(recipient.id)))
              AND (cardinality(\(query.kinds)::text[]) = 0 OR kind = ANY(\(query.kinds)::text[]))
              AND created_at >= \(query.period.start) AND created_at < \(query.period.end)
              AND (\(after == nil) OR (created_at, notification_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY created_at DESC, notification_id DESC LIMIT \(page.limit + 1)
            """,
            as: (
                UUID, String?, String, String, String, String, String?, Int?, String?, Double?, Date?, UUID?, UUID, Date, Bool, Bool, String?, String?
            ).self)
        let notifications = rows.map {
            Notification(
                notificationId: $0.0, patientId: $0.1, kind: $0.2, severity: $0.3, category: $0.4, messageKey: $0.5, text: $0.6,
                outOfRangeCount: $0.7,
                areaCode: $0.8, value: $0.9, peakAt: $0.10, aboutId: $0.11, sourceEventId: $0.12, createdAt: $0.13, read: $0.14, acknowledged: $0.15,
                withdrawn: $0.16, link: $0.17)
        }
        return Page(rows: notifications, request: page) { .init(date: $0.createdAt, id: $0.notificationId) }
    }

    /// Unread notifications that stand, and how many of them are urgent.
    func unread(_ recipient: Recipient) async throws -> (all: Int, urgent: Int) {
        let row = try await session.fetchAll(
            """
            SELECT count(*)::int, (count(*) FILTER (WHERE severity = 'urgent'))::int FROM notifications n
            WHERE recipient_role = \(recipient.role.rawValue) AND recipient_id = \(recipient.id) AND read_at IS NULL AND withdrawn_at IS NULL
              AND (\(recipient.role != .consultant) OR grant_in_force(n.patient_id, \(recipient.id)))
            """, as: (Int, Int).self)
        return (row.first?.0 ?? 0, row.first?.1 ?? 0)
    }

    enum Mark: String, Sendable {
        case read, acknowledged
    }

    /// Marks one of the recipient's notifications read (or acknowledged, which reads it too); the first time counts.
    /// Nil when the recipient has no such notification.
    func mark(
        _ notificationID: UUID, _ mark: Mark, for recipient: Recipient
    ) async throws -> (readAt: Date, acknowledgedAt: Date?)? {
        let acknowledge = mark == .acknowledged
        return try await session.fetchAll(
            """
            UPDATE notifications n SET read_at = coalesce(read_at, now()),
                acknowledged_at = CASE WHEN \(acknowledge) THEN coalesce(acknowledged_at, now()) ELSE acknowledged_at END
            WHERE notification_id = \(notificationID) AND recipient_role = \(recipient.role.rawValue) AND recipient_id = \(recipient.id)
              AND (\(recipient.role != .consultant) OR grant_in_force(n.patient_id, \(recipient.id)))
            RETURNING read_at, acknowledged_at
            """, as: (Date, Date?).self
        ).first.map { (readAt: $0.0, acknowledgedAt: $0.1) }
    }
}
