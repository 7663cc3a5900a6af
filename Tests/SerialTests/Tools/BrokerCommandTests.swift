import CaretideLocalStack
import CaretideSchemas
import CaretideTestSupport
import Foundation
import Testing

/// `caretide broker`, run as an operator would run it (from CLITests). Runs alone (SerialTests): it takes the broker
/// down and up by signal, which re-binds the librdkafka mock broker's port at once, and the mock aborts its process if
/// another test's socket took the port in between.
@Suite(.serialized) struct BrokerCommandTests {
    static let kcat = ["/usr/bin/kcat", "/usr/local/bin/kcat"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("caretide broker creates the topics, writes its address, and takes faults by signal")
    func brokerCommand() async throws {
        let kcat = try #require(Self.kcat, "kcat is not installed (apt-get install kcat)")
        let addressFile = FileManager.default.temporaryDirectory.appendingPathComponent("broker-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: addressFile) }
        let broker = ServiceProcess(
            name: "broker", executable: Paths.executable("caretide"),
            arguments: ["broker", "--partitions", "2", "--address-file", addressFile.path], environment: ProcessInfo.processInfo.environment)
        // Whatever fails below, the broker does not outlive the test (it has no child to leave behind).
        defer { broker.killHard() }
        try broker.start()
        try await eventually("the broker's address file") { FileManager.default.fileExists(atPath: addressFile.path) }
        let address = try String(contentsOf: addressFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        let metadata = try await Subprocess.run("/usr/bin/timeout", ["20", kcat, "-L", "-J", "-b", address])
        #expect(metadata.status == 0)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(metadata.output.utf8)) as? [String: Any])
        let topics = (listing["topics"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
            $0[$1["topic"] as? String ?? ""] = ($1["partitions"] as? [Any])?.count
        }
        for topic in Topic.allCases { #expect(topics[topic.name] == 2, "\(topic.name)") }

        broker.signal(SIGUSR1)  // every broker down
        try await eventually("metadata fails while the broker is down") {
            try await Subprocess.run("/usr/bin/timeout", ["20", kcat, "-L", "-b", address, "-m", "2"]).status != 0
        }
        broker.signal(SIGUSR2)  // and back up
        try await eventually("the broker back up") {
            try await Subprocess.run("/usr/bin/timeout", ["20", kcat, "-L", "-b", address, "-m", "2"]).status == 0
        }

        broker.signal(SIGTERM)
        #expect(await broker.waitForExit(timeout: .seconds(20)))
        #expect(broker.exitCode == 0)
    }
}
