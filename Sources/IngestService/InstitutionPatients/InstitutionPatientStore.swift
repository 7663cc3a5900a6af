import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO

/// The SQL of institutions' patients: each institution's registration of a patient under its own id (name, sex and
/// date of birth as the institution has them, protected health information kept here alone), the activation code's
/// digest, the Caretide patient it is linked to, the exam reports that wait for that link, and patients' failed
/// redemptions (for their limit). Nothing here is logged but ids.
///
/// Lock order: a registration's row before the patient's change counter and records (`RecordWriter`); a waiting report
/// is parked under a share lock of its registration, so a redemption (which locks it for update) either sees the
/// report and delivers it, or the report sees the link and is stored for the patient.
struct InstitutionPatientStore: ServiceStore {
    let session: StoreSession

    /// One institution's record of one of its patients.
    struct Key: Hashable, Sendable {
        let institutionID: String
        let institutionPatientID: String
    }

    /// A registration, as redemption and the institution's view read it.
    struct Registration: Sendable {
        let key: Key
        let registration: InstitutionLinking.Registered
        let name: PersonName?
        let sex: ProfileSex
        let registeredAt: Date
        let linkedAt: Date?

        /// What the institution registered, in the form a report's patient is shown from.
        var asProfile: PatientProfile { PatientProfile(name: name, sex: sex, birthDate: registration.birthDate) }
    }

    /// Registers the patient, or replaces the details and the code of a registration made before (a link made stays).
    /// Returns whether the registration is new.
    func register(_ key: Key, name: PersonName?, sex: ProfileSex, birthDate: LocalDate, codeDigest: Data, codeExpiresAt: Date, at now: Date)
        async throws -> Bool
    {
        let nameText = try name.map { try CaretideJSON.encodeToString($0) }
        return try await session.fetchAll(
            """
            INSERT INTO institution_patients AS r (institution_id, institution_patient_id, name, sex, birth_date, registered_at, code_digest,
                                                   code_expires_at, code_failures)
            VALUES (\(key.institutionID), \(key.institutionPatientID), \(nameText), \(sex.rawValue), \(birthDate.description), \(now),
                    \(codeDigest), \(codeExpiresAt), 0)
            ON CONFLICT (institution_id, institution_patient_id) DO UPDATE SET name = excluded.name, sex = excluded.sex,
                birth_date = excluded.birth_date, code_digest = excluded.code_digest, code_expires_at = excluded.code_expires_at,
                code_failures = 0, code_redeemed_at = NULL
            RETURNING (xmax = 0)
            """, as: Bool.self
        ).first ?? false
    }

    /// The registration whose code has `digest`, locked for update until the transaction ends.
    func lockByCode(_ digest: Data) async throws -> Registration? {
        try await session.fetchAll(
            "SELECT \(unescaped: Self.columns) FROM institution_patients WHERE code_digest = \(digest) FOR UPDATE", as: Self.Row.self
        ).first.map(Self.registration)
    }

    /// The registration, if the institution made one.
    func registration(_ key: Key) async throws -> Registration? {
        try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM institution_patients
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID)
            """, as: Self.Row.self
        ).first.map(Self.registration)
    }

    /// The patient's links, oldest first.
    func links(patientID: String) async throws -> [Registration] {
        try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM institution_patients WHERE patient_id = \(patientID)
            ORDER BY linked_at, institution_id, institution_patient_id
            """, as: Self.Row.self
        ).map(Self.registration)
    }

    private static let columns = """
        institution_id, institution_patient_id, name, sex, birth_date, registered_at, code_expires_at, code_failures, code_redeemed_at,
        patient_id, linked_at
        """
    private typealias Row = (String, String, String?, String, String, Date, Date, Int, Date?, String?, Date?)

    private static func registration(_ row: Row) -> Registration {
        Registration(
            key: Key(institutionID: row.0, institutionPatientID: row.1),
            registration: InstitutionLinking.Registered(
                birthDate: LocalDate(row.4), codeExpiresAt: row.6, codeFailures: row.7, codeRedeemed: row.8 != nil, linkedPatientID: row.9),
            name: row.2.flatMap { try? JSONValueDecoder.decode(PersonName.self, from: CaretideJSON.parse(Array($0.utf8))) },
            sex: ProfileSex(rawValue: row.3) ?? .unknown,
            registeredAt: row.5, linkedAt: row.10)
    }

    /// Links the registration to the patient and spends its code.
    func link(_ key: Key, patientID: String, at now: Date) async throws {
        try await session.query(
            """
            UPDATE institution_patients SET patient_id = \(patientID), linked_at = \(now), code_redeemed_at = \(now)
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID)
            """)
    }

    /// Counts a wrong date of birth against the code (`InstitutionLinking.birthDateTriesPerCode`).
    func countWrongBirthDate(_ key: Key) async throws {
        try await session.query(
            """
            UPDATE institution_patients SET code_failures = code_failures + 1
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID)
            """)
    }

    /// Ends links: one registration's (the institution's side, `patientID` nil), or every one of the patient's with the
    /// institution. Returns how many ended.
    func unlink(institutionID: String, institutionPatientID: String? = nil, patientID: String? = nil) async throws -> Int {
        try await session.fetchAll(
            """
            UPDATE institution_patients SET patient_id = NULL, linked_at = NULL
            WHERE institution_id = \(institutionID) AND patient_id IS NOT NULL
              AND (\(institutionPatientID == nil) OR institution_patient_id = \(institutionPatientID ?? ""))
              AND (\(patientID == nil) OR patient_id = \(patientID ?? ""))
            RETURNING 1
            """, as: Int.self
        ).count
    }

    // MARK: - Patients' failed redemptions

    /// The patient's failed redemptions since `since`, oldest first.
    func failures(patientID: String, since: Date) async throws -> [Date] {
        try await session.fetchAll(
            "SELECT failed_at FROM link_redemption_failures WHERE patient_id = \(patientID) AND failed_at >= \(since) ORDER BY failed_at",
            as: Date.self)
    }

    /// Records a failed redemption, and forgets those too old to count.
    func recordFailure(patientID: String, at now: Date, forgetBefore: Date) async throws {
        try await session.query("INSERT INTO link_redemption_failures (patient_id, failed_at) VALUES (\(patientID), \(now))")
        try await session.query("DELETE FROM link_redemption_failures WHERE patient_id = \(patientID) AND failed_at < \(forgetBefore)")
    }

    // MARK: - Reports waiting for a link

    /// Where the institution's report for `institutionPatientID` goes: the linked patient, the wait (registered, not
    /// linked), or, for an id the institution never registered, that id itself (institutions that send Caretide ids).
    func destination(_ key: Key) async throws -> InstitutionLinking.Destination {
        let rows = try await session.fetchAll(
            """
            SELECT patient_id FROM institution_patients
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID)
            """, as: String?.self)
        return InstitutionLinking.destination(
            registered: !rows.isEmpty, linkedPatientID: rows.first ?? nil, institutionPatientID: key.institutionPatientID)
    }

    /// Parks a checked report until its registration is linked (a correction replaces the waiting one), unless a link
    /// exists by now: then nothing is parked and the linked patient is returned. Refuses (409) beyond the bounds of
    /// `InstitutionLinking`.
    func park(_ key: Key, examID: String, body: String, at now: Date) async throws -> String? {
        let registration = try await session.fetchAll(
            """
            SELECT patient_id FROM institution_patients
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID) FOR SHARE
            """, as: String?.self)
        if let linked = registration.first ?? nil { return linked }
        let counts = try await session.fetchAll(
            """
            SELECT count(*) FILTER (WHERE institution_patient_id = \(key.institutionPatientID)), count(*),
                   bool_or(exam_id = \(examID))
            FROM waiting_exam_results WHERE institution_id = \(key.institutionID)
            """, as: (Int, Int, Bool?).self
        ).first
        if counts?.2 != true, let counts, let refusal = InstitutionLinking.waitingRefusal(forPatient: counts.0, forInstitution: counts.1) {
            throw HTTPProblem(status: .conflict, error: refusal)
        }
        try await session.query(
            """
            INSERT INTO waiting_exam_results (institution_id, exam_id, institution_patient_id, body, received_at)
            VALUES (\(key.institutionID), \(examID), \(key.institutionPatientID), \(body)::jsonb, \(now))
            ON CONFLICT (institution_id, exam_id) DO UPDATE SET institution_patient_id = excluded.institution_patient_id,
                body = excluded.body, received_at = excluded.received_at
            """)
        return nil
    }

    /// The reports waiting for the registration, oldest first, with their exam ids, locked until the transaction ends.
    func lockWaiting(_ key: Key) async throws -> [(examID: String, body: JSONValue)] {
        let rows = try await session.fetchAll(
            """
            SELECT exam_id, body::text FROM waiting_exam_results
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID)
            ORDER BY received_at, exam_id FOR UPDATE
            """, as: (String, String).self)
        return try rows.map { ($0.0, try CaretideJSON.parse(Array($0.1.utf8))) }
    }

    /// The exam ids of the reports waiting for the registration, oldest first.
    func waiting(_ key: Key) async throws -> [String] {
        try await session.fetchAll(
            """
            SELECT exam_id FROM waiting_exam_results
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID) ORDER BY received_at, exam_id
            """, as: String.self)
    }

    // MARK: - Reports patients said are not theirs

    /// Records that the patient who held the report said it is not theirs (the report itself is deleted by its writer).
    func recordDispute(_ key: Key, examID: String, at now: Date) async throws {
        try await session.query(
            """
            INSERT INTO disputed_exam_results (institution_id, exam_id, institution_patient_id, disputed_at)
            VALUES (\(key.institutionID), \(examID), \(key.institutionPatientID), \(now))
            ON CONFLICT (institution_id, exam_id) DO NOTHING
            """)
    }

    /// The exam ids of the registration's reports its patient said are not theirs, oldest first.
    func disputed(_ key: Key) async throws -> [String] {
        try await session.fetchAll(
            """
            SELECT exam_id FROM disputed_exam_results
            WHERE institution_id = \(key.institutionID) AND institution_patient_id = \(key.institutionPatientID) ORDER BY disputed_at, exam_id
            """, as: String.self)
    }

    /// Drops waiting reports: delivered to their patient, or retracted by the institution. Returns how many waited.
    func dropWaiting(institutionID: String, examIDs: [String]) async throws -> Int {
        guard !examIDs.isEmpty else { return 0 }
        return try await session.fetchAll(
            "DELETE FROM waiting_exam_results WHERE institution_id = \(institutionID) AND exam_id = ANY(\(examIDs)) RETURNING 1", as: Int.self
        ).count
    }
}
