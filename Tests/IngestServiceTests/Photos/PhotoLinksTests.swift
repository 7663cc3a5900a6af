import CaretideImaging
import CaretideRuntime
import Foundation
import Testing

@testable import IngestService

@Suite("Photo links and settings")
struct PhotoLinksTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let links = PhotoLinks(settings: PhotoSettings(linkKey: Array(repeating: 7, count: 32), linkBaseURL: "https://ingest.example.org/"))

    static func parts(_ url: String) throws -> (path: String, expires: String, signature: String) {
        let components = try #require(URLComponents(string: url))
        let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        return (components.path, try #require(query["expires"]), try #require(query["signature"]))
    }

    @Test("a link names the patient and photo, expires after its lifetime, and is valid only as signed, for them, until then")
    func signedLinks() throws {
        let photo = UUID()
        let link = Self.links.link(patientID: "p-1", photoID: photo, now: Self.now)
        #expect(link.url.hasPrefix("https://ingest.example.org/v1/patients/p-1/photos/\(photo.uuidString.lowercased())/file?"))
        #expect(link.expiresAt == Self.now.addingTimeInterval(3600))
        let (_, expires, signature) = try Self.parts(link.url)
        #expect(signature.count == 64)
        #expect(Self.links.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: signature, now: Self.now))
        // Valid until the second it expires, not at it.
        #expect(
            Self.links.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: signature, now: link.expiresAt.addingTimeInterval(-1)))
        #expect(!Self.links.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: signature, now: link.expiresAt))
        // Another patient, photo, expiry, a changed signature, none, or another key's: not valid.
        #expect(!Self.links.isValid(patientID: "p-2", photoID: photo, expires: expires, signature: signature, now: Self.now))
        #expect(!Self.links.isValid(patientID: "p-1", photoID: UUID(), expires: expires, signature: signature, now: Self.now))
        #expect(!Self.links.isValid(patientID: "p-1", photoID: photo, expires: String(Int(expires)! + 1), signature: signature, now: Self.now))
        let flipped = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
        #expect(!Self.links.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: flipped, now: Self.now))
        for bad in [nil, "", "zz", String(signature.dropLast(2))] {
            #expect(!Self.links.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: bad, now: Self.now))
        }
        #expect(!Self.links.isValid(patientID: "p-1", photoID: photo, expires: nil, signature: signature, now: Self.now))
        let other = PhotoLinks(settings: PhotoSettings())
        #expect(!other.isValid(patientID: "p-1", photoID: photo, expires: expires, signature: signature, now: Self.now))
        // Without a base URL the link is a path on ingest.
        #expect(other.link(patientID: "p-1", photoID: photo, now: Self.now).url.hasPrefix("/v1/patients/p-1/photos/"))
    }

    @Test("the photo settings from the environment: defaults, values in range, and every wrong one named")
    func settings() throws {
        #expect(try PhotoSettings.fromEnvironment([:]) == PhotoSettings())
        let set = try PhotoSettings.fromEnvironment([
            "PHOTO_MAX_BYTES": "1048576", "PHOTO_MAX_PIXELS": "20000000", "PHOTO_MIN_SHARPNESS": "35", "PHOTO_CONCURRENT_CHECKS": "4",
            "PHOTO_LINK_TTL_SECONDS": "600", "PHOTO_LINK_KEY": Data(repeating: 1, count: 32).base64EncodedString(),
            "PHOTO_LINK_BASE_URL": "https://ingest.example.org",
        ])
        #expect(set.limits.maximumBytes == 1_048_576 && set.limits.maximumPixels == 20_000_000 && set.limits.minimumSharpness == 35)
        #expect(set.concurrentChecks == 4 && set.linkLifetimeSeconds == 600 && set.linkKey?.count == 32)
        #expect(set.linkBaseURL == "https://ingest.example.org")
        do throws(InvalidConfiguration) {
            _ = try PhotoSettings.fromEnvironment([
                "PHOTO_MAX_BYTES": "40000000", "PHOTO_MAX_PIXELS": "10", "PHOTO_MIN_SHARPNESS": "-1", "PHOTO_CONCURRENT_CHECKS": "0",
                "PHOTO_LINK_TTL_SECONDS": "5", "PHOTO_LINK_KEY": "c2hvcnQ=", "PHOTO_LINK_BASE_URL": "ftp://x",
            ])
            Issue.record("wrong settings were accepted")
        } catch {
            let named = error.problems.compactMap { $0.split(separator: " ").first.map(String.init) }
            #expect(
                named.sorted() == [
                    "PHOTO_CONCURRENT_CHECKS", "PHOTO_LINK_BASE_URL", "PHOTO_LINK_KEY", "PHOTO_LINK_TTL_SECONDS", "PHOTO_MAX_BYTES",
                    "PHOTO_MAX_PIXELS",
                    "PHOTO_MIN_SHARPNESS",
                ])
        }
    }
}
