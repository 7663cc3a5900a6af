import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// An outside Kafka client (kcat, from Debian's `kcat` package) talks to the pipeline over the wire: it produces a raw
/// event into the measurements topic and reads the resulting alert back from the alerts topic.
@Suite(.serialized, .stoppingStacks) struct KcatTests {
    static let kcat = ["/usr/bin/kcat", "/usr/local/bin/kcat"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("kcat produces a raw measurement event and reads the alert it causes")
    func kcatRoundTrip() async throws {
        let kcat = try #require(Self.kcat, "kcat is not installed (apt-get install kcat)")
        let stack = try await TestStack.start([ScoringService.definition, NotificationService.definition])
        let eventID = UUID()
        let event =
            #"{"eventId":"\#(eventID)","eventType":"blood-pressure.recorded","schemaVersion":1,"occurredAt":"2026-11-22T08:00:00Z","producer":"kcat","patientId":"patient-kcat","traceId":"kcat-trace","payload":{"measurementId":"\#(UUID())","revision":1,"systolic":190,"diastolic":100,"takenAt":"2026-11-22T07:59:00Z","source":"device"}}"#
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("kcat-\(eventID).txt")
        try Data("patient-kcat|\(event)\n".utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }

        let produced = try await Subprocess.run(
            kcat,
            ["-P", "-b", stack.broker.bootstrapServers, "-t", Topic.measurements.name, "-K", "|", "-H", "trace-id=kcat-trace", "-l", input.path])
        #expect(produced.status == 0, "\(produced.output)")

        // Waits (bounded by `timeout`) for the first alert and prints it as JSON with its key and headers.
        let consumed = try await Subprocess.run(
            "/usr/bin/timeout",
            ["60", kcat, "-C", "-b", stack.broker.bootstrapServers, "-t", Topic.alerts.name, "-o", "beginning", "-c", "1", "-J", "-q"])
        #expect(consumed.status == 0, "\(consumed.output)")
        let line = try #require(consumed.output.split(separator: "\n").first { $0.hasPrefix("{") })
        let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(message["key"] as? String == "patient-kcat")
        let headers = message["headers"] as? [String] ?? []
        #expect(headers.contains("event-type") && headers.contains("alert.raised"))
        #expect(headers.contains("trace-id") && headers.contains("kcat-trace"))
        let alert = try EventCodec().decode(Array((message["payload"] as? String ?? "").utf8))
        let payload = try #require(alert.payload(as: AlertRaised.self))
        #expect(payload.category == "hypertensiveCrisis")
        #expect(alert.traceID == "kcat-trace")
        try await stack.shutdown()
    }
}
