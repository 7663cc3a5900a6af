import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// The SQL of `outside_shares` and `outside_share_openings`: a patient's report shared with someone outside Caretide,
/// opened with its access code, and every attempt to open it.
struct OutsideShareStore: ServiceStore {
    let session: StoreSession

    /// Wrong codes (or dates of birth) after which a share opens no more: the patient shares again.
    static let failuresBeforeLock = 5
    /// Wrong codes from one address, on any share, after which it is refused for a while.
    static let failuresPerAddress = 20
    static let addressWindow: TimeInterval = 15 * 60

    struct Share: Encodable, Sendable {
        let shareId: UUID
        let from: Date
        let to: Date
        let sections: [ReportSection]
        let asksBirthDate: Bool
        let createdAt: Date
        let expiresAt: Date
        let revokedAt: Date?
        let lockedAt: Date?
        let failedAttempts: Int
        /// active, expired, revoked or locked.
        let status: String
        let openings: Int
        let lastOpenedAt: Date?
    }

    struct Opening: Encodable, Sendable {
        let at: Date
        /// The name the viewer gave (absent on a refusal before the name was read).
        let viewerName: String?
        let address: String
        /// opened, refused (a wrong code or date of birth), locked (tried after the lock) or throttled (too many wrong
        /// codes from the address).
        let outcome: String
    }

    func create(
        _ id: UUID, patientID: String, period: Period, sections: [ReportSection], code: OutsideShareCode, asksBirthDate: Bool, now: Date,
        expiresAt: Date
    ) async throws {
        let salt = OutsideShareCode.salt()
        let digest = OutsideShareCode.digest(OutsideShareCode.normalised(code.text) ?? "", salt: salt)
        try await session.query(
            """
            INSERT INTO outside_shares (share_id, patient_id, period_from, period_to, sections, code_salt, code_digest, asks_birth_date, created_at,
                                        expires_at)
            VALUES (\(id), \(patientID), \(period.start), \(period.end), \(sections.map(\.rawValue)), \(salt),
                    \(digest), \(asksBirthDate), \(now), \(expiresAt))
            """)
    }

    func list(patientID: String, now: Date) async throws -> [Share] {
        try await session.fetchAll(
            """
            SELECT s.share_id, s.period_from, s.period_to, s.sections, s.asks_birth_date, s.created_at, s.expires_at, s.revoked_at, s.locked_at,
                   s.failed_attempts, (SELECT count(*)::int FROM outside_share_openings o WHERE o.share_id = s.share_id AND o.outcome = 'opened'),
                   (SELECT max(o.at) FROM outside_share_openings o WHERE o.share_id = s.share_id AND o.outcome = 'opened')
            FROM outside_shares s WHERE s.patient_id = \(patientID) ORDER BY s.created_at DESC, s.share_id
            """, as: (UUID, Date, Date, [String], Bool, Date, Date, Date?, Date?, Int, Int, Date?).self
        ).map { row in
            Share(
                shareId: row.0, from: row.1, to: row.2, sections: row.3.compactMap(ReportSection.init(rawValue:)), asksBirthDate: row.4,
                createdAt: row.5, expiresAt: row.6, revokedAt: row.7, lockedAt: row.8, failedAttempts: row.9,
                status: Self.status(revokedAt: row.7, lockedAt: row.8, expiresAt: row.6, now: now), openings: row.10, lastOpenedAt: row.11)
        }
    }

    /// A share's status as the patient's list shows it: the first that applies of revoked, locked and expired, else
    /// active. Expired from the instant `expiresAt` itself, as `openable` and `attempt` refuse it from then on.
    static func status(revokedAt: Date?, lockedAt: Date?, expiresAt: Date, now: Date) -> String {
        revokedAt != nil ? "revoked" : lockedAt != nil ? "locked" : expiresAt <= now ? "expired" : "active"
    }

    /// Revokes a share of the patient's at once; false when there is no such share.
    func revoke(_ id: UUID, patientID: String, now: Date) async throws -> Bool {
        try await !session.fetchAll(
            """
            UPDATE outside_shares SET revoked_at = coalesce(revoked_at, \(now)) WHERE share_id = \(id) AND patient_id = \(patientID) RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    func openings(_ id: UUID, patientID: String) async throws -> [Opening]? {
        guard try await !session.fetchAll("SELECT 1 FROM outside_shares WHERE share_id = \(id) AND patient_id = \(patientID)", as: Int.self).isEmpty
        else { return nil }
        return try await session.fetchAll(
            "SELECT at, viewer_name, address, outcome FROM outside_share_openings WHERE share_id = \(id) ORDER BY at, opening_id",
            as: (Date, String?, String, String).self
        ).map { Opening(at: $0.0, viewerName: $0.1, address: $0.2, outcome: $0.3) }
    }

    /// A share as its page needs it: whether it opens at all, and whether it asks for a date of birth.
    struct Openable: Sendable {
        let patientID: String
        let period: Period
        let sections: [ReportSection]
        let asksBirthDate: Bool
    }

    /// The share, if it exists, is neither revoked nor expired; locked ones are told apart by the caller.
    func openable(_ id: UUID, now: Date) async throws -> (share: Openable, locked: Bool)? {
        try await session.fetchAll(
            """
            SELECT patient_id, period_from, period_to, sections, asks_birth_date, locked_at IS NOT NULL FROM outside_shares
            WHERE share_id = \(id) AND revoked_at IS NULL AND expires_at > \(now)
            """, as: (String, Date, Date, [String], Bool, Bool).self
        ).first.map {
            (
                Openable(
                    patientID: $0.0, period: Period(start: $0.1, end: $0.2), sections: $0.3.compactMap(ReportSection.init(rawValue:)),
                    asksBirthDate: $0.4), $0.5
            )
        }
    }

    /// Whether an address with `recentFailures` wrong attempts (on any share, within `addressWindow`) is refused
    /// before what it typed is read: once `failuresPerAddress` are counted, so guessing codes across many shares from
    /// one network stalls.
    static func throttles(recentFailures: Int) -> Bool { recentFailures >= failuresPerAddress }

    enum Attempt: Sendable {
        case opened(Openable)
        /// Wrong: `locked` when this failure locked the share.
        case refused(locked: Bool)
        case locked
        case throttled
        case gone

        var opens: Bool {
            if case .opened = self { true } else { false }
        }
    }

    /// The row an attempt left in `outside_share_openings` (none when a refusal of its kind from its address was
    /// already recorded in the window): its id, which the access trail's entry takes, and whose share it was.
    struct Recorded: Sendable {
        let openingID: UUID
        let patientID: String
    }

    /// One attempt to open a share, judged and recorded in the caller's transaction: the share's row is locked, so
    /// attempts at once count one after another. `matches` says whether what was typed is right.
    func attempt(
        _ id: UUID, viewerName: String, address: String, now: Date,
        matches: (_ salt: Data, _ digest: Data, _ patientID: String, _ asksBirthDate: Bool) async throws -> Bool
    ) async throws -> (Attempt, Recorded?) {
        guard
            let row = try await session.fetchAll(
                """
                SELECT patient_id, period_from, period_to, sections, asks_birth_date, code_salt, code_digest, locked_at IS NOT NULL
                FROM outside_shares WHERE share_id = \(id) AND revoked_at IS NULL AND expires_at > \(now) FOR UPDATE
                """, as: (String, Date, Date, [String], Bool, Data, Data, Bool).self
            ).first
        else { return (.gone, nil) }
        let patientID = row.0
        var recorded: Recorded?
        func record(_ outcome: String) async throws {
            let openingID = UUID.timeOrdered()
            try await session.query(
                """
                INSERT INTO outside_share_openings (opening_id, share_id, patient_id, at, viewer_name, address, outcome)
                VALUES (\(openingID), \(id), \(patientID), \(now), \(viewerName), \(address), \(outcome))
                """)
            recorded = Recorded(openingID: openingID, patientID: patientID)
        }
        // Attempts on a locked share, or from a throttled address, are refused without being read: one row per address
        // and share per window says so, however often they come, so that nobody can fill the table by knocking.
        func recordOnce(_ outcome: String) async throws {
            let told = try await session.fetchAll(
                """
                SELECT 1 FROM outside_share_openings
                WHERE share_id = \(id) AND address = \(address) AND outcome = \(outcome) AND at > \(now.addingTimeInterval(-Self.addressWindow))
                LIMIT 1
                """, as: Int.self)
            if told.isEmpty { try await record(outcome) }
        }
        if row.7 {
            try await recordOnce("locked")
            return (.locked, recorded)
        }
        let recentFailures =
            try await session.fetchAll(
                """
                SELECT count(*)::int FROM outside_share_openings
                WHERE address = \(address) AND outcome <> 'opened' AND at > \(now.addingTimeInterval(-Self.addressWindow))
                """, as: Int.self
            ).first ?? 0
        if Self.throttles(recentFailures: recentFailures) {
            try await recordOnce("throttled")
            return (.throttled, recorded)
        }
        guard try await matches(row.5, row.6, patientID, row.4) else {
            let locks =
                try await session.fetchAll(
                    """
                    UPDATE outside_shares SET failed_attempts = failed_attempts + 1,
                        locked_at = CASE WHEN failed_attempts + 1 >= \(Self.failuresBeforeLock) THEN \(now) END
                    WHERE share_id = \(id) RETURNING locked_at IS NOT NULL
                    """, as: Bool.self
                ).first ?? false
            try await record("refused")
            return (.refused(locked: locks), recorded)
        }
        try await record("opened")
        let share = Openable(
            patientID: patientID, period: Period(start: row.1, end: row.2), sections: row.3.compactMap(ReportSection.init(rawValue:)),
            asksBirthDate: row.4)
        return (.opened(share), recorded)
    }

    /// The names and addresses of the attempts `openingIDs` on `patientID`'s shares.
    func viewers(_ openingIDs: [UUID], patientID: String) async throws -> [UUID: OutsideViewer] {
        let rows = try await session.fetchAll(
            """
            SELECT opening_id, viewer_name, address FROM outside_share_openings
            WHERE opening_id = ANY(\(openingIDs)) AND patient_id = \(patientID)
            """, as: (UUID, String?, String).self)
        return Dictionary(rows.map { ($0.0, OutsideViewer(name: $0.1, address: $0.2)) }, uniquingKeysWith: { first, _ in first })
    }
}

/// The patient's access log reads who tried to open an outside share from the share's openings.
struct OutsideShareViewers: OutsideViewerDirectory {
    func viewers(_ auditIDs: [UUID], patientID: String, session: StoreSession) async throws -> [UUID: OutsideViewer] {
        try await OutsideShareStore(session: session).viewers(auditIDs, patientID: patientID)
    }
}
