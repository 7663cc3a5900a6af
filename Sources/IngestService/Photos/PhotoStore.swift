import CaretideImaging
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The SQL of skin photos: one row a photo, with the checked file, its thumbnail and what describes it. Reads are
/// by patient and photo id together, so a photo id alone never reaches another patient's photo.
struct PhotoStore: ServiceStore {
    let session: StoreSession

    /// What describes a stored photo (everything but its bytes).
    struct Photo: Encodable, Sendable {
        let photoId: UUID
        let bodySite: BodySite
        /// left or right for a paired site; absent for one on the midline.
        let side: BodySide?
        let takenAt: Date
        let recordedAt: Date
        /// The format sent (jpeg, png or heif).
        let sentFormat: ImageFormat
        /// The media type the photo is served in (a HEIF photo is stored as JPEG).
        let mediaType: String
        let width: Int
        let height: Int
        /// The variance of the Laplacian at the working size (`CaretideImaging.Sharpness`).
        let sharpness: Double
        let bytes: Int
    }

    enum Stored: Sendable {
        case created(Photo)
        /// The same id with the same bytes sent again: nothing new.
        case duplicate(Photo)
        /// The id names another photo (different bytes, or another patient's).
        case idTaken
    }

    /// A new photo of `patientID`; the same upload again is a duplicate, another under the same id a conflict.
    func insert(
        id: UUID, patientID: String, site: BodySite, side: BodySide?, takenAt: Date, inspected: PhotoInspection.Inspected, sentDigest: [UInt8]
    ) async throws -> Stored {
        let inserted = try await session.fetchAll(
            """
            INSERT INTO lesion_photos (photo_id, patient_id, body_site, side, taken_at, sent_format, media_type, width, height, sharpness,
                                       sent_sha256, image, thumbnail)
            VALUES (\(id), \(patientID), \(site.rawValue), \(side?.rawValue), \(takenAt), \(inspected.format.rawValue),
                    \(inspected.storedFormat.mediaType), \(inspected.width), \(inspected.height), \(inspected.sharpness), \(ByteBuffer(bytes: sentDigest)),
                    \(ByteBuffer(bytes: inspected.stored)), \(ByteBuffer(bytes: inspected.thumbnail)))
            ON CONFLICT (photo_id) DO NOTHING
            RETURNING \(unescaped: Self.columns)
            """, as: Columns.self)
        if let row = inserted.first { return .created(try Self.photo(row)) }
        let existing = try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM lesion_photos
            WHERE photo_id = \(id) AND patient_id = \(patientID) AND sent_sha256 = \(ByteBuffer(bytes: sentDigest))
            """, as: Columns.self)
        return try existing.first.map { .duplicate(try Self.photo($0)) } ?? .idTaken
    }

    /// The ids of all of a patient's photos, oldest first: what an erasure announces deleted.
    func photoIDs(patientID: String) async throws -> [UUID] {
        try await session.fetchAll("SELECT photo_id FROM lesion_photos WHERE patient_id = \(patientID) ORDER BY recorded_at", as: UUID.self)
    }

    /// Deletes a patient's photo, its bytes with it; false when there is none.
    func delete(_ id: UUID, patientID: String) async throws -> Bool {
        try await !session.fetchAll(
            "DELETE FROM lesion_photos WHERE photo_id = \(id) AND patient_id = \(patientID) RETURNING 1", as: Int.self
        ).isEmpty
    }

    /// One page of a patient's photos grouped by site and side, each group oldest first: the timeline a patient and
    /// their dermatologist compare. `site` (and `side`) narrow it to one site.
    func timeline(patientID: String, site: BodySite?, side: BodySide?, page: PageRequest)
        async throws -> Page<Photo>
    {
        // The cursor's position is "site.side.takenAt-in-microseconds" of the last photo shown.
        let parts = page.after?.position.split(separator: ".", omittingEmptySubsequences: false).map(String.init) ?? []
        let after = parts.count == 3 ? (parts[0], parts[1], Int64(parts[2]) ?? 0, page.after?.id ?? "") : nil
        let rows = try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM lesion_photos
            WHERE patient_id = \(patientID)
              AND (\(site == nil) OR body_site = \(site?.rawValue ?? "")) AND (\(side == nil) OR side = \(side?.rawValue ?? ""))
              AND (\(after == nil) OR (body_site, coalesce(side, ''), taken_at, photo_id::text)
                   > (\(after?.0 ?? ""), \(after?.1 ?? ""), to_timestamp(\(Double(after?.2 ?? 0) / 1_000_000)), \(after?.3 ?? "")))
            ORDER BY body_site, coalesce(side, ''), taken_at, photo_id::text
            LIMIT \(page.limit + 1)
            """, as: Columns.self)
        return Page(rows: try rows.map(Self.photo), request: page) { photo in
            // bounded: takenAt was parsed from an RFC 3339 timestamp with a four-digit year.
            let micros = Int64((photo.takenAt.timeIntervalSince1970 * 1_000_000).rounded())
            return .init(position: "\(photo.bodySite.rawValue).\(photo.side?.rawValue ?? "").\(micros)", id: photo.photoId.uuidString.lowercased())
        }
    }

    /// What describes each of the patient's photos recorded by `time`, oldest taken first: what an export archives.
    func archived(patientID: String, recordedBy time: Date) async throws -> [Photo] {
        try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM lesion_photos
            WHERE patient_id = \(patientID) AND recorded_at <= \(time) ORDER BY taken_at, photo_id
            """, as: Columns.self
        ).map(Self.photo)
    }

    /// A photo's stored file or thumbnail with its media type; nil when the patient has no such photo.
    func file(_ id: UUID, patientID: String, thumbnail: Bool) async throws -> (ByteBuffer, String)? {
        // A thumbnail is always a JPEG; the photo is served in the type it was stored in.
        let columns = thumbnail ? "thumbnail, 'image/jpeg'" : "image, media_type"
        return try await session.fetchAll(
            "SELECT \(unescaped: columns) FROM lesion_photos WHERE photo_id = \(id) AND patient_id = \(patientID)", as: (ByteBuffer, String).self
        ).first
    }

    static let columns =
        "photo_id, body_site, side, taken_at, recorded_at, sent_format, media_type, width, height, sharpness, octet_length(image)"

    typealias Columns = (UUID, String, String?, Date, Date, String, String, Int, Int, Double, Int)

    static func photo(_ row: Columns) throws -> Photo {
        let (id, site, side, takenAt, recordedAt, format, mediaType, width, height, sharpness, bytes) = row
        guard let bodySite = BodySite(rawValue: site), let sentFormat = ImageFormat(rawValue: format) else {
            throw UnreadableRow(table: "lesion_photos", id: id.uuidString)
        }
        return Photo(
            photoId: id, bodySite: bodySite, side: side.flatMap(BodySide.init(rawValue:)), takenAt: takenAt, recordedAt: recordedAt,
            sentFormat: sentFormat, mediaType: mediaType, width: width, height: height, sharpness: sharpness, bytes: bytes)
    }

    /// A row no release of this code writes (a site or format it does not know).
    struct UnreadableRow: Error {
        let table: String
        let id: String
    }
}
