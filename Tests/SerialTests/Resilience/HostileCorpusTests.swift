import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Crypto
import DiagnosisService
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// The hostile corpus (`Tests/Fixtures/hostile-kafka/corpus.json`): every message in it is produced with
/// kcat, an outside client, to every topic a service consumes, and every consumer of that topic must end each one
/// applied (only where the corpus allows it), dead-lettered with a reason, or parked in PostgreSQL, with no stalled
/// partition, no crash and nothing half-stored.
///
/// Runs alone (SerialTests): its megabyte messages through four services and the embedded broker held other tests'
/// requests past their one-minute timeout.
@Suite(.serialized, .stoppingStacks) struct HostileCorpusTests {
    static let services = [
        IngestService.definition, ScoringService.definition, NotificationService.definition,
        DiagnosisService.definition(importOptions: HPOFixture.importOptions, dataDirectory: HPOFixture.directory.path),
    ]
    static let kcat = ["/usr/bin/kcat", "/usr/local/bin/kcat"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "every corpus message on every consumed topic is dead-lettered with a reason or parked by each consumer; no partition stalls, nothing is half-stored"
    )
    func corpus() async throws {
        let kcat = try #require(Self.kcat, "kcat is not installed (apt-get install kcat)")
        let corpus = try HostileCorpus.load()
        // One partition per topic: a message that stalled its partition would stall everything behind it.
        let stack = try await TestStack.start(Self.services, partitions: 1)
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let consumers = Dictionary(
            grouping: Self.services.flatMap { service in service.consumers.flatMap { consumer in consumer.topics.map { ($0, consumer.name) } } },
            by: \.0
        )
        .mapValues { $0.map(\.1) }
        let topics = consumers.keys.sorted { $0.name < $1.name }

        let produced = try await corpus.produce(to: topics.map(\.name), brokers: stack.broker.bootstrapServers, kcat: kcat)
        #expect(produced.status == 0, "\(produced.output)")

        // What must come back: one record per refused message and consumer.
        var expected: [HostileCorpus.Record: Int] = [:]
        var optional: Set<HostileCorpus.Record> = []
        for topic in topics {
            for consumer in consumers[topic] ?? [] {
                for entry in corpus.entries {
                    let record = HostileCorpus.Record(
                        consumer: consumer, topic: topic.name, key: entry.key?.bytes, valueDigest: HostileCorpus.digest(entry.value?.bytes))
                    if entry.mayApply == true { optional.insert(record) } else { expected[record, default: 0] += 1 }
                }
            }
        }
        var found: [HostileCorpus.Record: Int] = [:]
        var reasons: [String] = []
        func collect(_ messages: [IncomingMessage]) {
            for message in messages {
                let headers = message.headers
                let record = HostileCorpus.Record(
                    consumer: headers[EventHeader.deadLetterConsumer] ?? "", topic: headers[EventHeader.deadLetterTopic] ?? "",
                    key: message.keyBytes, valueDigest: HostileCorpus.digest(message.valueBytes))
                found[record, default: 0] += 1
                reasons.append(headers[EventHeader.deadLetterReason] ?? "")
            }
        }
        // Until every refusal has come back (bounded): the expectations below then name whatever is missing.
        var parked: [HostileCorpus.Record] = []
        let deadline = ContinuousClock.now + .seconds(240)
        while ContinuousClock.now < deadline {
            collect(try await deadLetters.drain(for: .seconds(1)))
            parked = try await Self.parked(stack)
            // Counted per expected record: a message the corpus allows to be applied may come back too (refused where
            // its type is not handled), and counting it in a total once ended the wait before every refusal was in.
            let parkedCounts = Dictionary(parked.map { ($0, 1) }, uniquingKeysWith: +)
            if expected.allSatisfy({ found[$0.key, default: 0] + parkedCounts[$0.key, default: 0] >= $0.value }) { break }
        }
        collect(try await deadLetters.drain(for: .seconds(3)))
        for record in parked { found[record, default: 0] += 1 }

        // Each refused message exactly once per consumer; an allowed one at most once; nothing that was not sent.
        let missing = expected.filter { found[$0.key, default: 0] < $0.value }
        let twice = found.filter { $0.value > (expected[$0.key] ?? (optional.contains($0.key) ? 1 : 0)) }
        let neverRecorded = missing.keys.map { corpus.describe($0) }.sorted()
        let recordedTooOften = twice.keys.map { corpus.describe($0) }.sorted()
        #expect(neverRecorded.isEmpty, "never dead-lettered nor parked: \(neverRecorded)")
        #expect(recordedTooOften.isEmpty, "recorded more often than sent, or not sent at all: \(recordedTooOften)")
        #expect(!reasons.contains(""), "a dead letter without its reason")
        #expect(!parked.isEmpty, "the message just under the producer's limit no longer fits with the dead-letter headers: parked")

        // No partition stalled: every consumer committed past the whole corpus, and every service is still ready.
        for service in Self.services {
            let baseURL = stack.baseURL(service.name)
            for topic in service.consumers.flatMap(\.topics) {
                try await eventually("\(service.name) has committed all of \(topic.name)") {
                    try await HTTP.get(baseURL + "/metrics").text.contains(#"caretide_consumer_lag{topic="\#(topic.name)"} 0"#)
                }
            }
            #expect(try await HTTP.get(baseURL + "/readyz").status == 200)
        }
        // Nothing half-stored: no assessment or notification of the corpus's refused patient.
        let assessed = try await stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.fetchAll(
                "SELECT source_event_id FROM assessments WHERE patient_id LIKE 'p-corpus%' AND patient_id <> 'p-corpus-valid'", as: UUID.self,
                logger: logger)
        }.map { corpus.entry(naming: $0) }
        let notified = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.fetchAll(
                "SELECT count(*)::int FROM notifications WHERE patient_id LIKE 'p-corpus%' AND patient_id <> 'p-corpus-valid'", as: Int.self,
                logger: logger)
        }
        #expect(assessed.isEmpty, "assessed though refused: \(assessed)")
        // What the corpus allows to be applied (a valid body, sent to several topics) is applied once at most.
        let applied = try await stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.fetchAll(
                "SELECT count(*)::int FROM assessments WHERE patient_id = 'p-corpus-valid' GROUP BY source_event_id", as: Int.self, logger: logger)
        }
        #expect(!applied.isEmpty && applied.allSatisfy { $0 == 1 }, "\(applied)")
        #expect(notified == [0])

        // And the pipeline still flows end to end behind the corpus.
        let ingest = stack.baseURL(IngestService.name)
        let patient = Caller.identity(Identity(subject: "p-after-corpus", role: .patient))
        #expect(
            try await HTTP.post(
                ingest + "/v1/patients/p-after-corpus/measurements/blood-pressure",
                json: #"{"measurementId": "\#(UUID())", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#, as: patient
            ).status == 201)
        try await eventually("a reading after the corpus reaches the patient's inbox") {
            try await HTTP.get(stack.baseURL(NotificationService.name) + "/v1/inbox", as: patient).items().count == 1
        }
        await deadLetters.close()
        try await stack.shutdown()
    }

    /// Every parked message of every service's schema, as a record to match against the corpus.
    static func parked(_ stack: TestStack) async throws -> [HostileCorpus.Record] {
        var records: [HostileCorpus.Record] = []
        for service in services {
            records += try await stack.withDatabase(schema: service.schema) { database, logger in
                try await database.client.fetchAll(
                    "SELECT consumer, source_topic, message_key, value_sha256, value, value_truncated FROM parked_messages",
                    as: (String, String, ByteBuffer?, ByteBuffer?, ByteBuffer?, Bool).self, logger: logger)
            }.map { consumer, topic, key, sha256, value, truncated in
                // Values beyond the parked cap are kept as their digest.
                let digest =
                    truncated ? sha256.map { Data(Array(buffer: $0)).base64EncodedString() } : HostileCorpus.digest(value.map { Array(buffer: $0) })
                return HostileCorpus.Record(consumer: consumer, topic: topic, key: key.map { Array(buffer: $0) }, valueDigest: digest)
            }
        }
        return records
    }
}

/// The corpus file and how its messages are produced with kcat.
struct HostileCorpus: Decodable {
    struct Entry: Decodable {
        let name: String
        let value: Bytes?
        let key: Bytes?
        let headers: [[Bytes]]
        let mayApply: Bool?
    }

    /// Bytes written as `"text"`, `{"text": …}`, `{"hex": …}` or `{"parts": [{"text": …, "times": n}, …]}`.
    struct Bytes: Decodable {
        let bytes: [UInt8]

        private struct Spec: Decodable {
            struct Part: Decodable {
                let text: String
                let times: Int?
            }
            let text: String?
            let hex: String?
            let parts: [Part]?
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                bytes = Array(text.utf8)
                return
            }
            let spec = try container.decode(Spec.self)
            if let text = spec.text {
                bytes = Array(text.utf8)
            } else if let hex = spec.hex {
                guard let decoded = Hex.bytes(hex) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an even number of hex digits: \(hex)")
                }
                bytes = decoded
            } else {
                bytes = (spec.parts ?? []).flatMap { part in Array(repeating: Array(part.text.utf8), count: part.times ?? 1).joined() }
            }
        }
    }

    /// One consumer's record of one message (a dead letter or a parked row), as far as the corpus can tell them apart.
    struct Record: Hashable, Sendable {
        let consumer: String
        let topic: String
        let key: [UInt8]?
        let valueDigest: String?
    }

    let entries: [Entry]

    static func load() throws -> HostileCorpus {
        let file = Paths.packageRoot.appendingPathComponent("Tests/Fixtures/hostile-kafka/corpus.json")
        return try JSONDecoder().decode(HostileCorpus.self, from: Data(contentsOf: file))
    }

    /// SHA-256 of a value, the way parked rows keep large ones; nil for a null value.
    static func digest(_ value: [UInt8]?) -> String? {
        value.map { Data(SHA256.hash(data: $0)).base64EncodedString() }
    }

    /// The name of the entry whose value carries `eventID`.
    func entry(naming eventID: UUID) -> String {
        let id = Array(eventID.uuidString.lowercased().utf8)
        return entries.first { entry in entry.value.map { $0.bytes.contains(id) } ?? false }?.name ?? "\(eventID), not in the corpus"
    }

    func describe(_ record: Record) -> String {
        let name = entries.first { $0.key?.bytes == record.key && Self.digest($0.value?.bytes) == record.valueDigest }?.name ?? "not in the corpus"
        return "\(record.consumer) on \(record.topic): \(name)"
    }

    /// Produces every entry to every topic, one kcat per message (its key and headers as given, byte for byte), the
    /// topics in parallel. Arguments are written with bash's `$'\xNN'` quoting, since invalid UTF-8 is part of the
    /// point and cannot pass through a Swift string.
    func produce(to topics: [String], brokers: String, kcat: String) async throws -> Subprocess.Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-corpus-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var script = "set -u\nfailed=0\n"
        for topic in topics {
            script += "(\n"
            for (index, entry) in entries.enumerated() {
                let file = directory.appendingPathComponent("\(index).value")
                try Data(entry.value?.bytes ?? []).write(to: file)
                var arguments = ["-P", "-b", brokers, "-t", topic, "-p", "0", "-q"].map(Self.quoted)
                for header in entry.headers where header.count == 2 {
                    arguments += ["-H", Self.quoted(header[0].bytes + Array("=".utf8) + header[1].bytes)]
                }
                let command: String
                if let value = entry.value, !value.bytes.isEmpty {
                    if let key = entry.key { arguments += ["-k", Self.quoted(key.bytes)] }
                    command = "\(kcat) \(arguments.joined(separator: " ")) \(file.path)"
                } else {
                    // kcat skips an empty file: an empty or null value is read from standard input instead, after
                    // its key and a delimiter (-Z makes the empty value null).
                    if entry.value == nil { arguments.append("-Z") }
                    var line: [UInt8] = []
                    if let key = entry.key {
                        precondition(!key.bytes.contains(1) && !key.bytes.contains(10), "\(entry.name): a key holding the delimiter")
                        arguments += ["-K", Self.quoted([1])]
                        line = key.bytes + [1]
                    }
                    command = "printf '%s\\n' \(Self.quoted(line)) | \(kcat) \(arguments.joined(separator: " "))"
                }
                script += "\(command) || { echo \"kcat refused entry \(index) for \(topic)\"; exit 1; }\n"
            }
            script += ") &\n"
        }
        script += "for job in $(jobs -p); do wait $job || failed=1; done\nexit $failed\n"
        let path = directory.appendingPathComponent("produce.sh")
        try Data(script.utf8).write(to: path)
        return try await Subprocess.run("/bin/bash", [path.path])
    }

    static func quoted(_ text: String) -> String { quoted(Array(text.utf8)) }

    /// `$'…'` with every byte outside plain printable ASCII (and the quote and backslash) as `\xNN`.
    static func quoted(_ bytes: [UInt8]) -> String {
        var quoted = "$'"
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "'") && byte != UInt8(ascii: "\\") {
                quoted.append(Character(UnicodeScalar(byte)))
            } else {
                quoted += String(format: "\\x%02x", byte)
            }
        }
        return quoted + "'"
    }
}
