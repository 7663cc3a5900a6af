import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// Skin photos through ingest-service over HTTP, against the real database: checks before anything is stored, the
/// timeline per body site, metadata stripped, thumbnails, access and audit.
@Suite(.serialized)
struct PhotoTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Paths.packageRoot.appendingPathComponent("Tests/CaretideImagingTests/Fixtures/\(name)"))
    }

    static func upload(_ base: String, _ id: UUID, _ file: String, query: String, as caller: Caller = .owner) async throws -> HTTP.Reply {
        try await HTTP.send(
            method: "PUT", "\(base)/\(id)?\(query)", body: try fixture(file), as: caller, headers: ["Content-Type": "image/jpeg"])
    }

    @Test("photos are checked, stored without EXIF, listed per site oldest first, served whole and as thumbnails; refusals name the problem")
    func timeline() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let photos = ingest + "/v1/patients/p-skin/photos"
        let back = "bodySite=upperBack&takenAt=2026-06-01T10:00:00Z"

        // Three photos of the left forearm over months (a HEIF among them), one of the back.
        let (first, second, third, backID) = (UUID(), UUID(), UUID(), UUID())
        let created = try await Self.upload(photos, second, "gps-exif.jpg", query: "bodySite=forearm&side=left&takenAt=2026-09-01T10:00:00Z")
        #expect(created.status == 201)
        let receipt = try #require(try created.json() as? [String: Any])
        #expect(receipt["status"] as? String == "created")
        #expect((receipt["skinCheck"] as? [String: Any])?["verdict"] as? String == "skin")
        let stored = try #require(receipt["photo"] as? [String: Any])
        #expect(stored["width"] as? Int == 480 && stored["height"] as? Int == 400 && stored["mediaType"] as? String == "image/jpeg")
        #expect(try await Self.upload(photos, first, "sharp.png", query: "bodySite=forearm&side=left&takenAt=2026-03-01T10:00:00Z").status == 201)
        #expect(try await Self.upload(photos, third, "sharp.heic", query: "bodySite=forearm&side=left&takenAt=2026-11-01T10:00:00Z").status == 201)
        #expect(try await Self.upload(photos, backID, "progressive.jpg", query: back).status == 201)
        // The same upload again: a duplicate, nothing new; other bytes under that id: a conflict.
        #expect(try await Self.upload(photos, backID, "progressive.jpg", query: back).status == 200)
        #expect(try await Self.upload(photos, backID, "sharp.jpg", query: back).status == 409)

        let all = try await HTTP.get(photos).items()
        #expect(all.map { $0["photoId"] as? String } == [first, second, third, backID].map { $0.uuidString.lowercased() })
        #expect(all.map { $0["sentFormat"] as? String } == ["png", "jpeg", "heif", "jpeg"])
        let forearm = try await HTTP.get(photos + "?bodySite=forearm&side=left&limit=2")
        #expect(try forearm.items().count == 2)
        let next = try #require((try forearm.json() as? [String: Any])?["nextCursor"] as? String)
        #expect(
            try await HTTP.get(photos + "?bodySite=forearm&side=left&limit=2&cursor=\(next)").items().map { $0["photoId"] as? String } == [
                third.uuidString.lowercased()
            ])

        // Served as stored: no GPS, no serial number; a HEIF photo as JPEG; the thumbnail a small JPEG.
        let image = try await HTTP.get("\(photos)/\(second)")
        #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg" && image.header("Cache-Control") == "no-store")
        #expect(image.body.range(of: Data("SN-0042-TEST".utf8)) == nil && image.body.range(of: Data("Exif".utf8)) == nil)
        #expect(image.body.count > 30_000)
        let heif = try await HTTP.get("\(photos)/\(third)")
        #expect(heif.header("Content-Type") == "image/jpeg" && heif.body.starts(with: [0xFF, 0xD8, 0xFF]))
        let thumbnail = try await HTTP.get("\(photos)/\(first)/thumbnail")
        #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg" && thumbnail.body.count < 20_000)

        // Each check refuses with a 422 naming the problem, and stores nothing.
        for (file, problem) in [
            ("blurred.jpg", "blurred"), ("too-small.jpg", "tooSmall"), ("not-an-image.jpg", "notAnImage"), ("bomb.png", "tooManyPixels"),
            ("skin/noskin-chair-painted.jpg", "noSkin"),
        ] {
            let refused = try await Self.upload(photos, UUID(), file, query: back)
            #expect(refused.status == 422 && refused.text.contains("(\(problem))"), "\(file): \(refused.text)")
        }
        // A photo of a wooden chair has enough of a skin colour to be unsure: kept, and the answer says so.
        let unsure = try await Self.upload(ingest + "/v1/patients/p-unsure/photos", UUID(), "skin/hard-chair-wooden.jpg", query: back)
        let check = (try unsure.json() as? [String: Any])?["skinCheck"] as? [String: Any]
        #expect(unsure.status == 201 && check?["verdict"] as? String == "unsure" && (check?["note"] as? String)?.isEmpty == false)
        // The query: an unknown site, a paired site without its side, a midline one with a side, no time, a time ahead.
        for (query, pointers) in [
            ("bodySite=elbow&takenAt=2026-06-01T10:00:00Z", ["/bodySite"]), ("bodySite=hand&takenAt=2026-06-01T10:00:00Z", ["/side"]),
            ("bodySite=neck&side=left&takenAt=2026-06-01T10:00:00Z", ["/side"]), ("bodySite=neck", ["/takenAt"]),
            ("bodySite=neck&takenAt=2999-01-01T00:00:00Z", ["/takenAt"]), ("side=up", ["/bodySite", "/side", "/takenAt"]),
        ] {
            let refused = try await Self.upload(photos, UUID(), "sharp.jpg", query: query)
            #expect(refused.status == 400, "\(query)")
            for pointer in pointers { #expect(refused.text.contains("\"\(pointer)\""), "\(query): \(pointer) in \(refused.text)") }
        }
        #expect(try await HTTP.get(photos).items().count == 4)

        // A consultant sees the photos only while the patient's grant is in force, and each view is in the access log.
        let consultant = Caller.identity(Identity(subject: "dr-skin", role: .consultant))
        #expect(try await HTTP.get("\(photos)/\(first)", as: consultant).status == 403)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-skin/care-team/dr-skin", json: "{}").status == 200)
        #expect(try await HTTP.get("\(photos)/\(first)", as: consultant).status == 200)
        #expect(try await HTTP.get(photos, as: consultant).items().count == 4)
        #expect(try await HTTP.send(method: "PUT", "\(photos)/\(UUID())?\(back)", body: try Self.fixture("sharp.jpg"), as: consultant).status == 403)
        let log = try await HTTP.get(ingest + "/v1/patients/p-skin/access-log?limit=500").items()
        let views = log.filter { $0["subject"] as? String == "dr-skin" && ($0["operation"] as? String ?? "").contains("photos") }
        #expect(views.filter { $0["outcome"] as? String == "allowed" }.count == 2)
        #expect(views.filter { $0["outcome"] as? String == "refused" }.count == 2)

        // Another patient's photo is not found under this patient; deleting removes the bytes.
        #expect(
            try await HTTP.get("\(ingest)/v1/patients/p-other/photos/\(first)", as: .identity(Identity(subject: "p-other", role: .patient))).status
                == 404)
        #expect(try await HTTP.send(method: "DELETE", "\(photos)/\(first)").status == 204)
        #expect(try await HTTP.get("\(photos)/\(first)").status == 404)
        #expect(try await HTTP.send(method: "DELETE", "\(photos)/\(first)").status == 404)
        try await stack.withDatabase(schema: "ingest") { database, logger in
            let rows = try await database.client.fetchAll(
                "SELECT count(*)::int FROM lesion_photos WHERE photo_id = \(first)", as: Int.self, logger: logger)
            #expect(rows == [0])
        }
        try await stack.shutdown()
    }

    @Test("each stored photo is announced with ids, its site and a signed link a classifier fetches it by; a deletion is announced too")
    func announcedForClassifiers() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let photos = ingest + "/v1/patients/p-classified/photos"
        let announcements = try KafkaProbe(stack.kafka, topic: Topic.photos.name)
        let id = UUID()
        #expect(try await Self.upload(photos, id, "sharp.heic", query: "bodySite=thigh&side=right&takenAt=2026-10-01T08:00:00Z").status == 201)
        let message = try #require(try await announcements.receive(1).first)
        let event = try EventCodec().decode(message.value)
        #expect(event.eventType == .lesionPhotoRecorded && event.patientID == "p-classified")
        let recorded = try #require(try event.payload(as: LesionPhotoRecorded.self))
        #expect(recorded.photoID == id && recorded.bodySite == .thigh && recorded.side == .right && recorded.mediaType == "image/jpeg")
        #expect(recorded.width == 480 && recorded.height == 400 && recorded.linkExpiresAt > Date().addingTimeInterval(3000))
        // The event holds no pixels (the photo is 96 KB): only the link leads to the file.
        #expect(message.value.count < 2_048)

        // A classifier with the photos:classify scope fetches the file through the link; the bytes are the stored ones.
        let classifier = Caller.identity(Identity(subject: "classifier", role: .service, scopes: ["photos:classify"]))
        let fetched = try await HTTP.get(ingest + recorded.imageURL, as: classifier)
        #expect(fetched.status == 200 && fetched.header("Content-Type") == "image/jpeg")
        #expect(fetched.body == (try await HTTP.get("\(photos)/\(id)")).body)
        // Not without the scope, nor for the patient, nor with a changed signature or another photo's id.
        #expect(
            try await HTTP.get(ingest + recorded.imageURL, as: .identity(Identity(subject: "other", role: .service, scopes: ["patients:read"])))
                .status == 403)
        #expect(try await HTTP.get(ingest + recorded.imageURL, as: .identity(Identity(subject: "p-classified", role: .patient))).status == 403)
        let tampered = String(recorded.imageURL.dropLast()) + (recorded.imageURL.hasSuffix("0") ? "1" : "0")
        #expect(try await HTTP.get(ingest + tampered, as: classifier).status == 404)
        let elsewhere = recorded.imageURL.replacingOccurrences(of: id.uuidString.lowercased(), with: UUID().uuidString.lowercased())
        #expect(try await HTTP.get(ingest + elsewhere, as: classifier).status == 404)
        #expect(try await HTTP.get(ingest + "/v1/patients/p-classified/photos/\(id)/file", as: classifier).status == 404)

        #expect(try await HTTP.send(method: "DELETE", "\(photos)/\(id)").status == 204)
        let deletion = try EventCodec().decode(try #require(try await announcements.receive(1).first).value)
        #expect(try deletion.payload(as: LesionPhotoDeleted.self)?.photoID == id)
        #expect(try await HTTP.get(ingest + recorded.imageURL, as: classifier).status == 404)
        await announcements.close()
        try await stack.shutdown()
    }
}
