import CaretideSchemas
import Foundation
import Testing

/// The JSON Schema files in `Schemas/` and the Swift event types are one contract: every Swift sample validates
/// against its schema file, and every `examples` entry of every schema file decodes in Swift.
@Suite struct SchemaContractTests {
    /// The repository's `Schemas/` folder, read from disk so the test checks the files people edit.
    static let schemasDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas")

    static func loadDocument(_ relativePath: String) throws -> JSONValue {
        let data = try #require(FileManager.default.contents(atPath: schemasDirectory.appendingPathComponent(relativePath).path))
        return try CaretideJSON.parse(data)
    }

    let catalog = try! SchemaCatalog(directory: SchemaContractTests.schemasDirectory)

    @Test("every event type has a schema file and a Swift sample", arguments: EventType.allCases)
    func everyEventTypeIsCovered(type: EventType) throws {
        _ = try Self.loadDocument(type.schemaPath)
        let sample = try #require(EventSamples.all.first { $0.eventType == type }, "no Swift sample for \(type.rawValue)")
        #expect(ObjectIdentifier(sample.payloadType) == ObjectIdentifier(type.payloadType))
    }

    @Test("Swift samples validate against the schema files", arguments: EventSamples.all)
    func swiftSamplesValidate(sample: EventSample) throws {
        let bytes = try sample.encode()
        let document = try CaretideJSON.parse(bytes)
        #expect(catalog.envelope.validate(document) == [])
        #expect(catalog.payloads[sample.eventType]!.validate(document["payload"]!) == [])
        // And the full codec accepts and decodes it back to the same payload.
        let decoded = try EventCodec(catalog: catalog).decode(bytes)
        #expect(decoded.eventType == sample.eventType)
        #expect(sample.payloadEquals(decoded.payload))
    }

    @Test("every schema example decodes into its Swift type", arguments: EventType.allCases)
    func schemaExamplesDecode(type: EventType) throws {
        let schema = try Self.loadDocument(type.schemaPath)
        guard case .array(let examples)? = schema["examples"] else {
            Issue.record("\(type.schemaPath) has no examples")
            return
        }
        #expect(!examples.isEmpty)
        for example in examples {
            #expect(catalog.payloads[type]!.validate(example) == [])
            #expect(throws: Never.self) { try type.decodePayload(from: example) }
        }
    }

    @Test("the envelope examples decode through the codec")
    func envelopeExamplesDecode() throws {
        let envelope = try Self.loadDocument("envelope.v1.schema.json")
        guard case .array(let examples)? = envelope["examples"] else {
            Issue.record("the envelope schema has no examples")
            return
        }
        for example in examples {
            let event = try EventCodec(catalog: catalog).decode(try CaretideJSON.encode(example))
            #expect(event.producer.isEmpty == false)
        }
    }

    @Test("request examples validate against their schemas")
    func requestExamplesValidate() throws {
        #expect(catalog.requests.count == RequestSchema.allCases.count)
        for name in RequestSchema.allCases {
            let schema = try Self.loadDocument(name.path)
            guard case .array(let examples)? = schema["examples"] else {
                Issue.record("api/\(name) has no examples")
                continue
            }
            for example in examples { #expect(catalog.validateRequest(name, example) == []) }
        }
    }

    @Test("the bundled schemas are the files in Schemas/")
    func bundledCatalogMatchesFiles() throws {
        for type in EventType.allCases {
            let bundled = try #require(
                FileManager.default.contents(atPath: SchemaCatalog.bundledDirectory.appendingPathComponent(type.schemaPath).path))
            let source = try #require(FileManager.default.contents(atPath: Self.schemasDirectory.appendingPathComponent(type.schemaPath).path))
            #expect(bundled == source)
        }
    }

    @Test("every schema file is used by an event type (its current or previous version, which consumers still read), the envelope or a request")
    func noOrphanSchemaFiles() throws {
        let read = EventType.allCases.flatMap { type in
            (max(1, type.schemaVersion - 1)...type.schemaVersion).map { "events/\(type.rawValue).v\($0).schema.json" }
        }
        let known = Set(read + ["envelope.v1.schema.json"] + RequestSchema.allCases.map(\.path))
        let enumerator = FileManager.default.enumerator(atPath: Self.schemasDirectory.path)!
        for case let path as String in enumerator where path.hasSuffix(".schema.json") {
            #expect(known.contains(path), "\(path) belongs to no event type")
        }
    }

    @Test("a number past its documented bound is refused by its schema, by pointer: an exam value over Int.max among them")
    func numbersAreBounded() throws {
        func item(_ members: [String: JSONValue]) -> JSONValue {
            .object(
                [
                    "patientId": .string("patient-0001"), "reportedAt": .string("2026-11-22T06:10:00Z"),
                    "items": .array([
                        .object(
                            ["code": .string("2345-7"), "name": .string("Glucose"), "value": .number(182), "unit": .string("mg/dL")].merging(members)
                            { _, new in new })
                    ]),
                ])
        }
        #expect(catalog.validateRequest(.examResult, item(["value": .number(1e19)])).map(\.pointer) == ["/items/0/value"])
        #expect(
            catalog.validateRequest(.examResult, item(["value": .number(-1e19), "criticalHigh": .number(1e13)])).map(\.pointer).sorted() == [
                "/items/0/criticalHigh", "/items/0/value",
            ])
        #expect(catalog.validateRequest(.examResult, item(["value": .number(1e12), "referenceLow": .number(-1e12)])) == [])
        let lipids: JSONValue = .object([
            "measurementId": .string("0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"), "takenAt": .string("2026-11-22T07:55:00Z"), "unit": .string("mgPerDL"),
            "triglycerides": .number(1e300),
        ])
        #expect(catalog.validateRequest(.lipidPanel, lipids).map(\.pointer) == ["/triglycerides"])
        let meal: JSONValue = .object([
            "mealId": .string("0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"), "foodId": .string("09003"), "meal": .string("snack"),
            "eatenAt": .string("2026-11-22T15:00:00Z"), "portion": .object(["id": .string("1"), "count": .number(1e308)]),
        ])
        #expect(catalog.validateRequest(.meal, meal).map(\.pointer) == ["/portion/count"])
    }
}
