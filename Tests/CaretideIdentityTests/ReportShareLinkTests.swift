import Foundation
import Testing

@testable import CaretideIdentity

/// A share link opens what it was signed for and nothing else: every field is bound by the signature, and so are
/// the key and the purpose.
@Suite struct ReportShareLinkTests {
    static let key = ShareKey(secret: "a-share-key-for-the-unit-tests-0123456789")!
    static let link = ReportShareLink(
        patientID: "p-1", shareID: UUID(uuidString: "01A20D3A-F94D-7395-9B2A-D34E9D0DD38B")!, consultantID: "dr-lee",
        from: Date(timeIntervalSince1970: 1_790_000_000.75), to: Date(timeIntervalSince1970: 1_792_000_000),
        expiresAt: Date(timeIntervalSince1970: 1_793_000_000))

    /// The query of a signed link as a route reads it.
    static func query(_ link: ReportShareLink, key: ShareKey = key) -> [String: String] {
        let url = link.relativeURL(signedWith: key)
        let pairs = url.split(separator: "?")[1].split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        return Dictionary(uniqueKeysWithValues: pairs.map { ($0[0], $0[1]) })
    }

    static func verify(_ query: [String: String], patientID: String = link.patientID, shareID: UUID = link.shareID, key: ShareKey = key)
        -> ReportShareLink?
    {
        ReportShareLink.verified(patientID: patientID, shareID: shareID, query: query, key: key)
    }

    @Test("a link read back is the link signed, to the second")
    func roundTrip() throws {
        let url = Self.link.relativeURL(signedWith: Self.key)
        #expect(url.hasPrefix("/v1/patients/p-1/shared-reports/01a20d3a-f94d-7395-9b2a-d34e9d0dd38b?consultant=dr-lee&from=1790000000&"))
        let read = try #require(Self.verify(Self.query(Self.link)))
        #expect(read == Self.link && read.from == Date(timeIntervalSince1970: 1_790_000_000))
    }

    @Test("changing any field of the query, or the path's patient or share, breaks the signature")
    func everyFieldIsBound() {
        let query = Self.query(Self.link)
        for (field, altered) in [("consultant", "dr-kim"), ("from", "1780000000"), ("to", "1799999999"), ("expires", "1899999999")] {
            var changed = query
            changed[field] = altered
            #expect(Self.verify(changed) == nil, "\(field)")
        }
        #expect(Self.verify(query, patientID: "p-2") == nil)
        #expect(Self.verify(query, shareID: UUID()) == nil)
    }

    @Test("another key, another signature, a missing or malformed field: nothing opens")
    func refusals() {
        let query = Self.query(Self.link)
        #expect(Self.verify(query, key: ShareKey(secret: "another-key-of-at-least-thirty-two-bytes")!) == nil)
        for field in ["consultant", "from", "to", "expires", "signature"] {
            var missing = query
            missing[field] = nil
            #expect(Self.verify(missing) == nil, "\(field)")
        }
        var malformed = query
        malformed["from"] = "yesterday"
        #expect(Self.verify(malformed) == nil)
        var garbled = query
        garbled["signature"] = "not base64url!"
        #expect(Self.verify(garbled) == nil)
        let other = ReportShareLink(
            patientID: "p-1", shareID: Self.link.shareID, consultantID: "dr-lee", from: Self.link.from, to: Self.link.to,
            expiresAt: Self.link.expiresAt.addingTimeInterval(1))
        var replayed = query
        replayed["signature"] = Self.query(other)["signature"]
        #expect(Self.verify(replayed) == nil)
    }

    @Test("the purpose is signed first: the same fields under another purpose give another signature")
    func purposeIsSigned() {
        #expect(Self.link.message.starts(with: Array("caretide.report-share.v1\n".utf8)))
        let signature = Self.link.signature(Self.key)
        #expect(ReportShareLink.bytes(base64URL: signature)?.count == 32)
    }

    @Test("a key shorter than HMAC-SHA256's strength is refused")
    func shortKeys() {
        #expect(ShareKey(secret: String(repeating: "k", count: 31)) == nil)
        #expect(ShareKey(secret: String(repeating: "k", count: 32)) != nil)
    }

    @Test("a time past year 9999 or before 1970 in the query opens nothing and stops nothing")
    func timesOutOfRange() {
        // Anyone may write a query: 2^63 − 1 seconds once made a date whose second trapped while the signature was checked.
        for (field, value) in [("expires", "9223372036854775807"), ("from", "-9223372036854775808"), ("to", "253402300800"), ("expires", "-1")] {
            var query = Self.query(Self.link)
            query[field] = value
            #expect(Self.verify(query) == nil, "\(field)=\(value)")
        }
        #expect(ReportShareLink.seconds(text: "253402300799") == ReportShareLink.latestSecond)
    }
}
