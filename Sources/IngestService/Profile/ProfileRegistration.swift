import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation

/// Writing a profile, from either door: the patient's own route, or what an institution's results say of the patient
/// (an HL7 v2 PID segment, a FHIR Patient resource). A change of sex or date of birth is announced in the same
/// transaction as `patient-demographics.changed`, with those two fields alone.
enum ProfileRegistration {
    static func write(
        _ profile: PatientProfile, patientID: String, source: ProfileStore.Source, expected: Int?, traceID: String, handler: HandlerContext
    ) async throws -> ProfileStore.Written {
        try await ErasureStore(handler).refuseIfErased(patientID: patientID)
        let written = try await ProfileStore(handler).write(profile, patientID: patientID, source: source, expected: expected)
        if case .changed(let stored, demographicsChanged: true) = written {
            let change = PatientDemographicsChanged(
                sex: profile.sex?.rawValue, birthDate: profile.birthDate?.description, profileRevision: stored.revision, changedAt: stored.changedAt)
            try await handler.publish(change, patientID: patientID, traceID: traceID)
        }
        return written
    }

    /// What an institution's message says of its patients, each taken into their profile (its other fields kept).
    /// A registration that changes nothing makes no revision, so the same message again writes nothing.
    static func register(
        _ registrations: [String: PatientProfile.Registration], institution: String, format: String, origin: WriteOrigin, context: ServiceContext
    ) async throws {
        for (patientID, registration) in registrations.sorted(by: { $0.key < $1.key }) where !registration.isEmpty {
            let source = ProfileStore.Source(role: "institution", subject: institution, institutionId: institution, format: format)
            _ = try await context.transaction { handler in
                let store = ProfileStore(handler)
                try await store.lock(patientID: patientID)
                let current = try await store.current(patientID: patientID)?.profile ?? PatientProfile()
                return try await write(
                    current.updated(by: registration), patientID: patientID, source: source, expected: nil, traceID: origin.traceID, handler: handler)
            }
        }
    }
}
