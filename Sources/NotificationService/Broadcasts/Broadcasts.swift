import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Health information and activities operators send to many patients' inboxes. A broadcast is stored at once and
/// delivered by a job in batches, in patient-id order from where the last batch stopped, so a broadcast to a hundred
/// thousand patients neither holds one transaction for long nor delivers anyone twice (each recipient's notification
/// id is made from the broadcast and the recipient).
struct Broadcasts: ServiceStore {
    let session: StoreSession

    static let batch = 2_000

    enum Audience: Sendable, Equatable {
        case all
        case area(String)
        case patients([String])
    }

    struct Broadcast: Sendable {
        let id: UUID
        let kind: String
        let text: String
        let audience: Audience
    }

    /// Stores a broadcast to deliver; false when the id is taken.
    func insert(_ broadcast: Broadcast) async throws -> Bool {
        let (scope, area, patients) = Self.columns(of: broadcast.audience)
        return try await !session.fetchAll(
            """
            INSERT INTO broadcasts (broadcast_id, kind, text, audience, area_code, patient_ids)
            VALUES (\(broadcast.id), \(broadcast.kind), \(broadcast.text), \(scope), \(area), \(patients))
            ON CONFLICT (broadcast_id) DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// How an audience is stored: its scope, its area, and its listed patients in id order, the order delivery walks
    /// them in from its cursor (`listedBatch`).
    static func columns(of audience: Audience) -> (scope: String, area: String?, patients: [String]) {
        switch audience {
        case .all: ("all", nil, [])
        case .area(let code): ("area", code, [])
        case .patients(let ids): ("patients", nil, ids.sorted())
        }
    }

    /// The next batch of a broadcast to listed patients: those after the cursor (`listed` is in id order), at most
    /// `batch` of them.
    static func listedBatch(_ listed: [String], after cursor: String) -> [String] {
        Array(listed.filter { $0 > cursor }.prefix(batch))
    }

    /// Where a broadcast stands after delivering `patients` from `cursor`: a batch shorter than `batch` completes it,
    /// and the cursor, a patient's id, is then cleared so that a completed broadcast names nobody; otherwise it moves
    /// to the batch's last patient.
    static func progress(after patients: [String], from cursor: String) -> (deliveredThrough: String, completed: Bool) {
        let completed = patients.count < batch
        return (deliveredThrough: completed ? "" : patients.last ?? cursor, completed: completed)
    }

    /// Delivers the next batch of the oldest broadcast still delivering (locked: replicas take different ones);
    /// returns how many patients it reached.
    static func deliverNext(context: HandlerContext) async throws -> Int {
        guard
            let (id, kind, text, audience, area, listed, after) = try await context.connection.fetchAll(
                """
                SELECT broadcast_id, kind, text, audience, area_code, patient_ids, delivered_through FROM broadcasts
                WHERE completed_at IS NULL ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
                """, as: (UUID, String, String, String, String?, [String], String).self, logger: context.logger
            ).first
        else { return 0 }
        let patients: [String] =
            switch audience {
            case "area":
                try await context.connection.fetchAll(
                    """
                    SELECT patient_id FROM environment_subscriptions WHERE area_code = \(area ?? "") AND patient_id > \(after)
                    ORDER BY patient_id LIMIT \(batch)
                    """, as: String.self, logger: context.logger)
            case "patients":
                listedBatch(listed, after: after)
            default:
                // Every patient notification-service knows of.
                try await context.connection.fetchAll(
                    """
                    SELECT patient_id FROM (
                        SELECT patient_id FROM notifications WHERE recipient_role = 'patient' AND patient_id > \(after)
                        UNION SELECT patient_id FROM environment_subscriptions WHERE patient_id > \(after)
                        UNION SELECT patient_id FROM reminders WHERE patient_id > \(after)
                        UNION SELECT recipient_id FROM recipient_preferences WHERE recipient_role = 'patient' AND recipient_id > \(after)
                        UNION SELECT patient_id FROM care_team_grants WHERE patient_id > \(after)) known
                    WHERE patient_id IS NOT NULL ORDER BY patient_id LIMIT \(batch)
                    """, as: String.self, logger: context.logger)
            }
        let now = Date()
        try await NotificationDelivery.deliver(
            patients.map { patient in
                NotificationStore.Row(
                    .broadcast(kind: kind), severity: .normal, source: id, about: id, to: .init(id: patient, role: .patient), patientID: patient,
                    raisedAt: now, text: text)
            }, traceID: nil, context: context)
        // The cursor is a patient's id: kept only while the broadcast delivers, so that a completed one names nobody.
        let (deliveredThrough, completed) = progress(after: patients, from: after)
        try await context.connection.query(
            """
            UPDATE broadcasts SET delivered_through = \(deliveredThrough), delivered = delivered + \(patients.count),
                   completed_at = CASE WHEN \(completed) THEN now() END
            WHERE broadcast_id = \(id)
            """, logger: context.logger)
        // A batch that reached nobody still moved the broadcast on (to completed).
        return max(patients.count, 1)
    }

    static func job(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "broadcast delivery", interval: interval, fullBatch: 1, context: context) {
            try await context.transaction { handler in try await deliverNext(context: handler) }
        }
    }

    /// A broadcast's progress as operators read it.
    struct Status: Encodable, Sendable {
        let broadcastId: UUID
        let kind: String
        let audience: String
        let delivered: Int
        let completed: Bool
        let createdAt: Date
    }

    func status(_ id: UUID) async throws -> Status? {
        try await session.fetchAll(
            "SELECT kind, audience, delivered, completed_at IS NOT NULL, created_at FROM broadcasts WHERE broadcast_id = \(id)",
            as: (String, String, Int, Bool, Date).self
        ).first.map { Status(broadcastId: id, kind: $0.0, audience: $0.1, delivered: $0.2, completed: $0.3, createdAt: $0.4) }
    }
}
