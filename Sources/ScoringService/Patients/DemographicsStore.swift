import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Each patient's sex and date of birth, as the newest `patient-demographics.changed` gives them (ingest-service keeps
/// the profile; this is all of it scoring-service learns). The diet analysis takes its reference intakes from them
/// when a request does not say.
struct DemographicsStore: ServiceStore {
    let session: StoreSession

    /// Keeps the change unless a later profile revision is already here (a redelivery, or an older event replayed).
    func apply(_ change: PatientDemographicsChanged, patientID: String) async throws {
        _ = try await session.query(
            """
            INSERT INTO patient_demographics (patient_id, sex, birth_date, profile_revision)
            VALUES (\(patientID), \(change.sex), \(change.birthDate)::date, \(change.profileRevision))
            ON CONFLICT (patient_id) DO UPDATE SET sex = EXCLUDED.sex, birth_date = EXCLUDED.birth_date,
                profile_revision = EXCLUDED.profile_revision
            WHERE patient_demographics.profile_revision < EXCLUDED.profile_revision
            """)
    }

    func demographics(patientID: String) async throws -> PatientDemographics {
        PatientDemographics(
            try await session.fetchAll(
                "SELECT sex, birth_date::text FROM patient_demographics WHERE patient_id = \(patientID)", as: (String?, String?).self
            ).first)
    }
}

/// What scoring-service knows of who a patient is: enough for reference intakes by sex and age, nothing more.
struct PatientDemographics: Sendable, Equatable {
    /// female or male; other and unknown give none (the reference tables are by sex).
    var sex: Sex?
    var birthDate: LocalDate?
    /// An age a request states (`?age=`), which then holds on every day in place of the date of birth's.
    var statedAge: Int?

    init(sex: Sex? = nil, birthDate: LocalDate? = nil) {
        self.sex = sex
        self.birthDate = birthDate
    }

    init(_ row: (String?, String?)?) {
        self.init(sex: row?.0.flatMap(Sex.init(rawValue:)), birthDate: row?.1.flatMap(LocalDate.init))
    }

    /// Completed years on `day` (the stated age, if any).
    func age(on day: LocalDate) -> Int? { statedAge ?? birthDate.map { $0.completedYears(on: day) } }
}
