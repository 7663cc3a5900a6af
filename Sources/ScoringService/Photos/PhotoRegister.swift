import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Which skin photos exist, by patient, as `caretide.photos` announces them: what scoring needs to refuse a
/// classifier's answer about a photo it never saw (or one deleted since). Ids only; ingest keeps the photos.
struct PhotoRegister: ServiceStore {
    let session: StoreSession

    func recorded(_ photo: LesionPhotoRecorded, patientID: String) async throws {
        try await session.query(
            """
            INSERT INTO known_photos (photo_id, patient_id, body_site, side, taken_at)
            VALUES (\(photo.photoID), \(patientID), \(photo.bodySite.rawValue), \(photo.side?.rawValue), \(photo.takenAt))
            ON CONFLICT (photo_id) DO UPDATE SET body_site = EXCLUDED.body_site, side = EXCLUDED.side, taken_at = EXCLUDED.taken_at
            WHERE known_photos.patient_id = EXCLUDED.patient_id AND known_photos.taken_at IS NULL
            """)
    }

    /// Forgets the photo; false when it was not known.
    func deleted(_ photoID: UUID, patientID: String) async throws -> Bool {
        try await !session.fetchAll(
            "DELETE FROM known_photos WHERE photo_id = \(photoID) AND patient_id = \(patientID) RETURNING 1", as: Int.self
        ).isEmpty
    }

    func knows(_ photoID: UUID, patientID: String) async throws -> Bool {
        try await !session.fetchAll(
            "SELECT 1 FROM known_photos WHERE photo_id = \(photoID) AND patient_id = \(patientID)", as: Int.self
        ).isEmpty
    }
}
