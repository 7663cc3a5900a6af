import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of patient profiles: every change is a revision row (what the profile became, who changed it and through
/// which door); the newest is the profile. Nothing here is logged but ids.
struct ProfileStore: ServiceStore {
    let session: StoreSession

    /// One revision of a profile.
    struct Revision: Encodable, Sendable {
        let revision: Int
        let profile: PatientProfile
        let source: Source
        let changedAt: Date
    }

    /// Who changed a profile, and through which door: ids, never names.
    struct Source: Codable, Sendable, Equatable {
        /// The caller's role: patient, consultant, institution or service.
        let role: String
        /// The caller's id (a patient's, a service client's), or the institution's for an institution's message.
        let subject: String
        let institutionId: String?
        /// profile (the profile's own route), hl7v2 (a PID segment) or fhir (a Patient resource).
        let format: String
    }

    enum Written: Sendable {
        /// A new revision; `demographicsChanged` when sex or date of birth differ from the revision before.
        case changed(Revision, demographicsChanged: Bool)
        /// The same profile again: no revision.
        case unchanged(Revision)
        /// `If-Match` named a revision that is no longer the newest.
        case stale(current: Int)
    }

    /// Stores `profile` as the patient's next revision, unless it is the current one already. `expected`, when given,
    /// must be the current revision (0 for none yet).
    func write(_ profile: PatientProfile, patientID: String, source: Source, expected: Int? = nil) async throws -> Written {
        try await lock(patientID: patientID)
        let current = try await current(patientID: patientID)
        if let expected, expected != (current?.revision ?? 0) { return .stale(current: current?.revision ?? 0) }
        if let current, current.profile == profile { return .unchanged(current) }
        let revision = (current?.revision ?? 0) + 1
        let rows = try await session.fetchAll(
            """
            INSERT INTO patient_profile_revisions (patient_id, revision, profile, source)
            VALUES (\(patientID), \(revision), \(try CaretideJSON.encodeToString(profile))::jsonb, \(try CaretideJSON.encodeToString(source))::jsonb)
            RETURNING changed_at
            """, as: Date.self)
        let stored = Revision(revision: revision, profile: profile, source: source, changedAt: rows.first ?? Date())
        return .changed(stored, demographicsChanged: current?.profile.demographics != profile.demographics)
    }

    /// One writer per patient at a time, until the transaction ends: a revision is read, then the next one taken.
    /// (Taking it again in the same transaction is harmless.)
    func lock(patientID: String) async throws {
        _ = try await session.query("SELECT pg_advisory_xact_lock(hashtextextended('profile:' || \(patientID), 0))")
    }

    /// The patient's profile: its newest revision, or nil when there is none.
    func current(patientID: String) async throws -> Revision? {
        try await revisions(patientID: patientID, before: nil, limit: 1).first
    }

    /// Revisions newest first, those before `before` when given.
    func revisions(patientID: String, before: Int?, limit: Int) async throws -> [Revision] {
        try Self.decoded(try await session.fetchAll(Self.revisions(patientID: patientID, before: before, limit: limit), as: Row.self))
    }

    private typealias Row = (Int, String, String, Date)

    private static func revisions(patientID: String, before: Int?, limit: Int) -> PostgresQuery {
        """
        SELECT revision, profile::text, source::text, changed_at FROM patient_profile_revisions
        WHERE patient_id = \(patientID) AND revision < \(before ?? Int(Int32.max))
        ORDER BY revision DESC LIMIT \(limit)
        """
    }

    private static func decoded(_ rows: [Row]) throws -> [Revision] {
        try rows.map { revision, profile, source, changedAt in
            Revision(
                revision: revision, profile: try JSONValueDecoder.decode(PatientProfile.self, from: CaretideJSON.parse(Array(profile.utf8))),
                source: try JSONValueDecoder.decode(Source.self, from: CaretideJSON.parse(Array(source.utf8))), changedAt: changedAt)
        }
    }
}
