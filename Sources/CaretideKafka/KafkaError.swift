/// The one error type of `CaretideKafka`.
///
/// ``description`` is safe to show (no payloads, no secrets); details such as the librdkafka error
/// name and the throwing source location are in ``debugDescription`` (`String(reflecting:)`).
public struct KafkaError: Error, CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    /// What failed.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case configuration, producer, delivery, consumer, commit, broker, closed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Invalid or missing configuration; creating a client failed.
        public static let configuration = Code(.configuration)
        /// The producer could not enqueue a message.
        public static let producer = Code(.producer)
        /// The broker did not acknowledge a message (delivery report carried an error).
        public static let delivery = Code(.delivery)
        /// Polling the consumer failed (fatal consumer error, subscription failed).
        public static let consumer = Code(.consumer)
        /// Committing offsets failed.
        public static let commit = Code(.commit)
        /// The embedded broker (mock cluster) failed.
        public static let broker = Code(.broker)
        /// The client was already shut down or closed.
        public static let closed = Code(.closed)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// A short human-readable explanation (no payload bytes, no property values).
    public var message: String
    /// Whether retrying the same operation later may succeed (timeouts, broker unavailable, queue full, ...).
    public var isRetriable: Bool
    /// librdkafka's symbolic name for the underlying error (for example `_MSG_TIMED_OUT`), if any.
    public var librdkafkaErrorName: String?
    /// Whether the broker or the client refuses this one message for what it is (too large, malformed), so sending
    /// it again can never succeed while other messages still go through. Unlike a non-retriable error in general
    /// (authorisation, an unknown topic, a fatal or closed producer), which would refuse every message alike.
    public var refusesMessage: Bool = false
    public var file: String
    public var line: Int

    public init(
        code: Code,
        message: String,
        isRetriable: Bool = false,
        librdkafkaErrorName: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.isRetriable = isRetriable
        self.librdkafkaErrorName = librdkafkaErrorName
        self.file = file
        self.line = line
    }

    public var description: String {
        "Kafka \(code) error: \(message)"
    }

    public var debugDescription: String {
        var text = "KafkaError(code: \(code), message: \(message), isRetriable: \(isRetriable)"
        if let librdkafkaErrorName {
            text += ", librdkafka: \(librdkafkaErrorName)"
        }
        return text + ", at: \(file):\(line))"
    }
}
