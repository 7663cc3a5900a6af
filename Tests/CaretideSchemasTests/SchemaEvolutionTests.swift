import CaretideSchemas
import Foundation
import Testing

/// Schema evolution as docs/operations.md states it: `pulse.recorded` is upgraded to a version 2 that adds an optional
/// `position`. A consumer built with version 2 reads what old producers still send (version 1); a consumer built with
/// version 1 tolerates what new producers send (version 2), keeping the fields it knows. Nothing is refused, so
/// nothing is dead-lettered; a version two steps ahead, or a v2 that breaks a field the old consumer knows, is.
@Suite struct SchemaEvolutionTests {
    /// The bundled schemas plus `events/pulse.recorded.v2.schema.json`: what the next release would ship.
    static let upgraded: SchemaCatalog = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-schemas-v2-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.copyItem(at: SchemaCatalog.bundledDirectory, to: directory)
        let v1 = directory.appendingPathComponent("events/pulse.recorded.v1.schema.json")
        var schema = try! JSONSerialization.jsonObject(with: Data(contentsOf: v1)) as! [String: Any]
        var properties = schema["properties"] as! [String: Any]
        properties["position"] = ["enum": ["sitting", "standing", "lying"], "description": "How the patient was placed (version 2)."]
        schema["properties"] = properties
        schema["$id"] = "https://schemas.caretide.dev/events/pulse.recorded.v2.schema.json"
        schema["title"] = "pulse.recorded, version 2 (payload)"
        try! JSONSerialization.data(withJSONObject: schema).write(to: directory.appendingPathComponent("events/pulse.recorded.v2.schema.json"))
        return try! SchemaCatalog(directory: directory)
    }()

    static func pulse(version: Int, extra: String = "", beats: String = "72") -> [UInt8] {
        Array(
            """
            {"eventId": "\(UUID())", "eventType": "pulse.recorded", "schemaVersion": \(version), "occurredAt": "2026-11-22T08:30:00Z",
             "producer": "ingest-service", "patientId": "p1",
             "payload": {"measurementId": "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11", "revision": 1, "takenAt": "2026-11-22T07:55:00Z",
                         "source": "device", "beatsPerMinute": \(beats)\(extra)}}
            """.utf8)
    }

    @Test("the catalogue knows each type's current and previous version from the files present")
    func versions() {
        #expect(Self.upgraded.currentVersions[.pulseRecorded] == 2)
        #expect(Self.upgraded.previousPayloads[.pulseRecorded]?.version == 1)
        #expect(SchemaCatalog.bundled.currentVersions[.pulseRecorded] == 1)
        #expect(SchemaCatalog.bundled.previousPayloads[.pulseRecorded] == nil)
        #expect(Self.upgraded.currentVersions[.bloodPressureRecorded] == 1)
    }

    @Test("an old producer against a new consumer: version 1 is read against its own schema")
    func oldProducerNewConsumer() throws {
        let event = try EventCodec(catalog: Self.upgraded).decode(Self.pulse(version: 1))
        #expect(event.payload(as: PulseRecorded.self)?.beatsPerMinute == 72)
        // Version 1 did not have the field: a v1 message carrying it is refused, as before the upgrade.
        #expect(throws: EventRejection.self) {
            try EventCodec(catalog: Self.upgraded).decode(Self.pulse(version: 1, extra: #", "position": "lying""#))
        }
    }

    @Test("a new producer against the new consumer: version 2 with the new field")
    func newProducerNewConsumer() throws {
        let event = try EventCodec(catalog: Self.upgraded).decode(Self.pulse(version: 2, extra: #", "position": "sitting""#))
        #expect(event.payloadDocument["position"]?.stringValue == "sitting")
        #expect(throws: EventRejection.self) {
            try EventCodec(catalog: Self.upgraded).decode(Self.pulse(version: 2, extra: #", "position": "upside-down""#))
        }
    }

    @Test("a new producer against an old consumer: version 2 is tolerated, read without the fields the consumer does not know")
    func newProducerOldConsumer() throws {
        let event = try EventCodec().decode(Self.pulse(version: 2, extra: #", "position": "standing""#))
        #expect(event.payload(as: PulseRecorded.self)?.beatsPerMinute == 72)
        #expect(event.payloadDocument["position"] == nil)
        // A v2 that changed a field the old consumer knows is refused: tolerance covers additions only.
        do {
            _ = try EventCodec().decode(Self.pulse(version: 2, beats: #""seventy-two""#))
            Issue.record("accepted a breaking change")
        } catch {
            #expect(error.reason == "invalid payload for pulse.recorded")
        }
        // Two versions ahead: the consumer must be upgraded first.
        do {
            _ = try EventCodec().decode(Self.pulse(version: 3))
            Issue.record("accepted a version two steps ahead")
        } catch {
            #expect(error.reason == "unsupported schema version")
            #expect(error.violations.first?.message == "must be one of 1, 2 for pulse.recorded")
        }
    }
}
