import CaretideSchemas
import Foundation
import Testing

/// `Schemas/asyncapi.yaml` against the code: a topic or an event type the code has and the catalogue lacks fails
/// here, as does a message whose payload schema is not the event's current one.
@Suite struct AsyncAPITests {
    static let catalogue: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Schemas/asyncapi.yaml").standardized
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    @Test("the catalogue is AsyncAPI 3.0 and has a channel for every topic the code uses")
    func everyTopic() {
        #expect(Self.catalogue.contains("\nasyncapi: 3.0.0\n"))
        for topic in Topic.allCases {
            #expect(Self.catalogue.contains("    address: \(topic.name)\n"), "\(topic.name) has no channel")
        }
    }

    @Test("every event type has a message named for it, whose payload is the event's current schema, on its topic's channel")
    func everyEventType() throws {
        for type in EventType.allCases {
            #expect(Self.catalogue.contains("      name: \(type.rawValue)\n"), "\(type.rawValue) has no message")
            #expect(Self.catalogue.contains("$ref: ./\(type.schemaPath)\n"), "\(type.rawValue): no reference to \(type.schemaPath)")
            // The channel of its topic lists it.
            let channel = try #require(Self.catalogue.range(of: "    address: \(type.topic.name)\n"))
            let rest = Self.catalogue[channel.upperBound...]
            let messages = rest[..<(rest.range(of: "\n  [a-zA-Z]+:\n", options: .regularExpression)?.lowerBound ?? rest.endIndex)]
            #expect(messages.contains("$ref: '#/components/messages/"), "\(type.topic.name) lists no messages")
        }
    }
}
