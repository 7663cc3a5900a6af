import Foundation
import PropertyBased
import Testing

@testable import CaretideSchemas

/// The decoder's shortcuts (UUIDs, number maps, the coding path put together only when asked for) answer as the
/// general path did.
@Suite("Decoding from a parsed document")
struct JSONValueDecoderTests {
    struct Reading: Decodable, Equatable {
        struct Detail: Decodable, Equatable { let count: Int }
        let id: UUID
        let values: [String: Double]
        let detail: Detail
        let tags: [Detail]
    }

    @Test("a UUID reads as Foundation reads it, in either case; anything else is refused by both")
    func uuids() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { _ in
            let uuid = UUID()
            #expect(UUIDText.parse(uuid.uuidString) == uuid)
            #expect(UUIDText.parse(uuid.uuidString.lowercased()) == uuid)
        }
        let valid = "0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0d"
        for invalid in [
            "", String(valid.dropLast()), valid + "0", valid.replacingOccurrences(of: "-", with: "_"), "g" + valid.dropFirst(),
            "0192f1c47-d2a-7b3e-9c4d-5e6f7a8b9c0d", "{0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0}",
        ] {
            #expect(UUIDText.parse(invalid) == nil, "\(invalid)")
            #expect(UUID(uuidString: invalid) == nil, "\(invalid)")
        }
    }

    @Test("a document decodes whole, number maps included")
    func decodes() throws {
        let document = try CaretideJSON.parse(
            Array(
                #"{"id": "0192F1C4-7D2A-7B3E-9C4D-5E6F7A8B9C0D", "values": {"systolic": 142, "diastolic": 91.5}, "detail": {"count": 3}, "tags": [{"count": 1}]}"#
                    .utf8))
        let reading = try JSONValueDecoder.decode(Reading.self, from: document)
        #expect(
            reading
                == Reading(
                    id: UUID(uuidString: "0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0d")!, values: ["systolic": 142, "diastolic": 91.5],
                    detail: .init(count: 3), tags: [.init(count: 1)]))
    }

    @Test("a member kept as JSON is the parsed value itself, and Foundation's decoder reads it the same")
    func jsonMembers() throws {
        struct Change: Decodable, Equatable {
            let kind: String
            let record: JSONValue?
        }
        let text = #"{"kind": "pulse", "record": {"n": [1, 2.5, "three", true, null, {"deep": {}}]}}"#
        let document = try CaretideJSON.parse(Array(text.utf8))
        let change = try JSONValueDecoder.decode(Change.self, from: document)
        #expect(change == Change(kind: "pulse", record: document["record"]))
        #expect(try JSONDecoder().decode(Change.self, from: Data(text.utf8)) == change)
        #expect(try JSONValueDecoder.decode(Change.self, from: ["kind": "pulse"]).record == nil)
    }

    @Test(
        "an optional member absent, null or present reads as Foundation's decoder reads it",
        arguments: [
            "{}", #"{"text": null, "flag": null, "number": null, "count": null, "big": null, "detail": null}"#,
            #"{"text": "a", "flag": false, "number": 2.5, "count": -3, "big": 9007199254740991, "detail": {"count": 4}}"#,
        ])
    func optionalMembers(json: String) throws {
        struct Optionals: Decodable, Equatable {
            struct Detail: Decodable, Equatable { let count: Int }
            let text: String?
            let flag: Bool?
            let number: Double?
            let count: Int?
            let big: Int64?
            let detail: Detail?
        }
        let ours = try JSONValueDecoder.decode(Optionals.self, from: CaretideJSON.parse(Array(json.utf8)))
        #expect(ours == (try JSONDecoder().decode(Optionals.self, from: Data(json.utf8))))
        #expect(throws: DecodingError.self) { try JSONValueDecoder.decode(Optionals.self, from: ["count": "three"]) }
    }

    @Test(
        "an error names the path to the member that failed",
        arguments: [
            (#"{"id": "nope", "values": {}, "detail": {"count": 1}, "tags": []}"#, ["id"]),
            (
                #"{"id": "0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0d", "values": {"systolic": "high"}, "detail": {"count": 1}, "tags": []}"#,
                ["values", "systolic"]
            ),
            (#"{"id": "0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0d", "values": {}, "detail": {"count": 1.5}, "tags": []}"#, ["detail", "count"]),
            (
                #"{"id": "0192f1c4-7d2a-7b3e-9c4d-5e6f7a8b9c0d", "values": {}, "detail": {"count": 1}, "tags": [{"count": 1}, {}]}"#,
                ["tags", "1", "count"]
            ),
        ])
    func errorPaths(json: String, path: [String]) throws {
        let document = try CaretideJSON.parse(Array(json.utf8))
        do {
            _ = try JSONValueDecoder.decode(Reading.self, from: document)
            Issue.record("decoded")
        } catch let error as DecodingError {
            let context: DecodingError.Context? =
                switch error {
                case .typeMismatch(_, let context), .dataCorrupted(let context), .valueNotFound(_, let context): context
                case .keyNotFound(let key, let context): .init(codingPath: context.codingPath + [key], debugDescription: "")
                @unknown default: nil
                }
            #expect(context?.codingPath.map(\.stringValue) == path)
        }
    }
}
