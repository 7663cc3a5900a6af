import CaretideRuntime
import CaretideSchemas
import Foundation

/// What ingest-service holds about a patient (`PatientData`): every record with its newest revision (measurements,
/// meals, clinical inputs, exam reports), the devices that synced them, report releases, skin photos, the profile's
/// revisions, the patient's grants and their links to institutions (with what each registered). An erasure deletes them; the change counter stays, marked erased (ids only):
/// it is what refuses later writes with 410, so a phone's offline queue cannot bring the data back. An export copies
/// them (a photo's image and thumbnail are left out: they are read through the photo routes) and makes the Patient,
/// Observation and DiagnosticReport resources of the FHIR Bundle (`IngestFHIR`). Outside classifiers were told of
/// each photo (`lesion-photo.recorded`): the erasure first announces each deleted (`lesion-photo.deleted`), as the
/// patient's own deletion of a photo does.
enum IngestPatientData {
    static let patientData = PatientData(
        first: { patientID, cause, context in
            let photos = try await PhotoStore(context).photoIDs(patientID: patientID)
            let now = Date()
            for photo in photos {
                try await context.publish(context.envelope(for: LesionPhotoDeleted(photoID: photo, deletedAt: now), causedBy: cause))
            }
        },
        tables: [
            PatientTable("records"),
            PatientTable("sync_devices"),
            PatientTable("report_releases"),
            PatientTable("lesion_photos", omitting: ["image", "thumbnail"]),
            PatientTable("patient_profile_revisions"),
            PatientTable("care_team_grants"),
            PatientTable("patient_exports", omitting: ["document", "bundle"]),
            PatientTable("institution_patients", omitting: ["code_digest"]),
            PatientTable("link_redemption_failures"),
        ],
        after: ["UPDATE patient_changes SET erased_at = coalesce(erased_at, now()) WHERE patient_id = $1"],
        resources: IngestFHIR.resources)
}
