import ArgumentParser
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import Foundation

/// `caretide dead-letters list|replay`: reads `caretide.dead-letter` and re-publishes chosen messages to the topic
/// they were refused on, once their cause is fixed (docs/operations.md, "Dead letters"). The broker is
/// `KAFKA_BROKERS` (and any `KAFKA_*` property), as for the services.
struct DeadLettersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters", abstract: "List the dead-letter topic, or replay chosen messages to their source topic.",
        subcommands: [List.self, Replay.self])

    struct Options: ParsableArguments {
        @Option(help: "Only dead letters refused on this topic.") var sourceTopic: String?
        @Option(help: "Stop reading once the topic has been quiet this many seconds (an empty topic: 10 at least).") var idle: Double = 3
    }

    /// One dead letter as `list` prints it: where it was refused and why; ids, never the body.
    struct Summary: Encodable {
        let partition: Int32
        let offset: Int64
        let sourceTopic: String?
        let sourcePartition: String?
        let sourceOffset: String?
        let consumer: String?
        let reason: String?
        let eventType: String?
        let key: String?
        let bytes: Int

        init(_ message: IncomingMessage) {
            let headers = message.headers
            partition = message.partition
            offset = message.offset
            sourceTopic = headers[EventHeader.deadLetterTopic]
            sourcePartition = headers[EventHeader.deadLetterPartition]
            sourceOffset = headers[EventHeader.deadLetterOffset]
            consumer = headers[EventHeader.deadLetterConsumer]
            reason = headers[EventHeader.deadLetterReason]
            // The header, or the envelope's own field when the producer sent no headers.
            eventType =
                headers[EventHeader.eventType]
                ?? ((try? JSONSerialization.jsonObject(with: Data(message.value))) as? [String: Any])?["eventType"] as? String
            key = message.key
            bytes = message.value.count
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every dead letter as a JSON line: where it was refused, why, its key and size.")
        @OptionGroup var options: Options

        func run() async throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for message in try await DeadLettersCommand.read(options) {
                Console.write(String(decoding: try encoder.encode(Summary(message)), as: UTF8.self) + "\n")
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-publish dead letters to their source topic, unchanged but for the dead-letter headers.",
            discussion: "Consumers de-duplicate by event id, so replaying a message that was meanwhile applied does nothing.")
        @OptionGroup var options: Options
        @Option(name: .customLong("offset"), help: "A dead letter to replay, as partition:offset (repeatable).") var offsets: [String] = []
        @Flag(help: "Replay every dead letter (of --source-topic, if given).") var all = false

        func validate() throws {
            guard all || !offsets.isEmpty else { throw ValidationError("name dead letters with --offset partition:offset, or give --all") }
            for offset in offsets where Self.position(offset) == nil {
                throw ValidationError("--offset \(offset) is not partition:offset")
            }
        }

        static func position(_ text: String) -> (Int32, Int64)? {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let partition = Int32(parts[0]), let offset = Int64(parts[1]) else { return nil }
            return (partition, offset)
        }

        func run() async throws {
            let wanted = Set(offsets.compactMap(Self.position).map { "\($0.0):\($0.1)" })
            let chosen = try await DeadLettersCommand.read(options).filter { all || wanted.contains("\($0.partition):\($0.offset)") }
            let found = Set(chosen.map { "\($0.partition):\($0.offset)" })
            if let missing = wanted.subtracting(found).sorted().first {
                throw ValidationError("no dead letter at \(missing)\(options.sourceTopic.map { " refused on \($0)" } ?? "")")
            }
            let known = Set(Topic.allCases.map(\.name)).subtracting([Topic.deadLetter.name])
            let producer = try KafkaProducer(configuration: try DeadLettersCommand.kafka(), logger: CommandLogging.logger("caretide.dead-letters"))
            var replayed = 0
            for message in chosen {
                guard let source = message.headers[EventHeader.deadLetterTopic], known.contains(source) else {
                    Console.write("skipped \(message.partition):\(message.offset): its source topic is not one of Caretide's\n")
                    continue
                }
                var copy = OutgoingMessage(
                    copying: message, to: source, addingHeaders: ["replayed-from": "\(Topic.deadLetter.name):\(message.partition):\(message.offset)"])
                copy.headerFields.removeAll { $0.name.hasPrefix("dead-letter-") }
                try await producer.send(copy)
                replayed += 1
                Console.write("replayed \(message.partition):\(message.offset) to \(source)\n")
            }
            await producer.shutdown()
            Console.write("\(replayed) replayed\n")
        }
    }

    static func kafka() throws -> KafkaConfiguration {
        do {
            return try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The dead-letter topic from its beginning until it has been quiet `idle` seconds, with a consumer group of its
    /// own that commits nothing, so reading changes nothing for anyone.
    static func read(_ options: Options) async throws -> [IncomingMessage] {
        let consumer = try KafkaConsumer(
            configuration: try kafka(), groupID: "caretide-dead-letters-\(UUID().uuidString.lowercased())", topics: [Topic.deadLetter.name],
            logger: CommandLogging.logger("caretide.dead-letters"))
        var messages: [IncomingMessage] = []
        var received = 0
        var quietSince = ContinuousClock.now
        let idle = Duration.milliseconds(Int64(options.idle * 1000))
        // Joining the group takes a few seconds before the first message can arrive: an empty topic is waited for
        // that long at least.
        let first = max(idle, .seconds(10))
        while ContinuousClock.now - quietSince < (received == 0 ? first : idle) {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                quietSince = ContinuousClock.now
                received += 1
                if options.sourceTopic == nil || message.headers[EventHeader.deadLetterTopic] == options.sourceTopic { messages.append(message) }
            }
        }
        await consumer.close()
        return messages.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
    }
}
