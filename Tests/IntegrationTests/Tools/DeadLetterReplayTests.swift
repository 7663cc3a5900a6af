import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import DiagnosisService
import Foundation
import PostgresNIO
import Testing

/// `caretide dead-letters`: an operator lists what was refused and why, fixes the cause, and replays the message to
/// its source topic, where it is applied once, however often it is replayed.
@Suite(.serialized, .stoppingStacks) struct DeadLetterReplayTests {
    @Test("an ontology update refused for a file not yet in place is listed with its reason, replayed after the fix, and imported once")
    func replayAfterTheFix() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hpo-replay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try await TestStack.start(
            [DiagnosisService.definition(importOptions: HPOFixture.importOptions, dataDirectory: directory.path)], partitions: 1)
        let results = try KafkaProbe(stack.kafka, topic: Topic.diagnosisResults.name)
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("pipeline"))
        let update = OntologyUpdateRequested(updateID: "replayed", kind: .minimum, ontologyFile: "hp.obo", annotationFile: "phenotype.hpoa")
        try await producer.send(DiagnosisKafkaTests.request(update))
        _ = try await deadLetters.receive(1)

        var environment = ProcessInfo.processInfo.environment
        environment["KAFKA_BROKERS"] = stack.broker.bootstrapServers
        let caretide = Paths.executable("caretide").path
        let listed = try await Subprocess.run(caretide, ["dead-letters", "list", "--idle", "2"], environment: environment)
        #expect(listed.status == 0, "\(listed.output)")
        let lines = listed.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count == 1, "\(listed.output)")
        let summary = try #require(try lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(summary["sourceTopic"] as? String == Topic.diagnosisRequests.name)
        #expect(summary["eventType"] as? String == "ontology-update.requested")
        #expect(summary["consumer"] as? String == DiagnosisService.name)
        #expect((summary["reason"] as? String)?.contains("not a regular file") == true)
        let position = "\(summary["partition"] as? Int ?? -1):\(summary["offset"] as? Int ?? -1)"
        // Filtering by another source topic lists nothing; an unknown position is refused.
        let other = try await Subprocess.run(
            caretide, ["dead-letters", "list", "--idle", "1", "--source-topic", Topic.measurements.name], environment: environment)
        #expect(other.status == 0 && !other.output.contains("{"))
        let unknown = try await Subprocess.run(caretide, ["dead-letters", "replay", "--idle", "1", "--offset", "0:999"], environment: environment)
        #expect(unknown.status != 0 && unknown.output.contains("no dead letter at 0:999"))

        // The fix: the release files are put in place. Then the replay, twice.
        for file in ["hp.obo", "phenotype.hpoa"] {
            try FileManager.default.copyItem(
                at: HPOFixture.directory.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        for _ in 0..<2 {
            let replay = try await Subprocess.run(
                caretide, ["dead-letters", "replay", "--idle", "1", "--offset", position], environment: environment)
            #expect(replay.status == 0 && replay.output.contains("replayed \(position) to \(Topic.diagnosisRequests.name)"), "\(replay.output)")
        }
        let imported = try #require(try EventCodec().decode(try await results.receive(1)[0].value).payload(as: OntologyReleaseImported.self))
        #expect(imported.updateID == "replayed")
        // Processed once: no second import, no new dead letter.
        #expect(try await results.drain(for: .seconds(3)).isEmpty)
        #expect(try await deadLetters.drain(for: .milliseconds(500)).isEmpty)
        let releases = try await stack.withDatabase(schema: "diagnosis") { database, logger in
            try await database.client.fetchAll("SELECT update_id FROM releases", as: String?.self, logger: logger)
        }
        #expect(releases == ["replayed"])
        await results.close()
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }
}
