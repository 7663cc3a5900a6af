public import Foundation

/// A message to publish. The ``key`` is the partitioning key: messages with the same key go to the
/// same partition and keep their order.
public struct OutgoingMessage: Sendable, Hashable {
    public var topic: String
    public var key: String?
    public var value: [UInt8]
    public var headers: [String: String]

    public init(topic: String, key: String? = nil, value: [UInt8], headers: [String: String] = [:]) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}

/// A message received by ``KafkaConsumer``. Its bytes were copied out of librdkafka.
public struct IncomingMessage: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: String?
    public var value: [UInt8]
    public var headers: [String: String]
    /// The producer's create time or the broker's log-append time, when the message carries one.
    public var timestamp: Date?

    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: String? = nil,
        value: [UInt8],
        headers: [String: String] = [:],
        timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }
}

/// Consumer lag of one assigned partition.
public struct KafkaPartitionLag: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    /// The partition's high watermark as last seen by the consumer's fetches (offset of the next message to be written).
    public var highWatermark: Int64
    /// Offset of the next message the application will receive from this partition.
    public var position: Int64
    /// `highWatermark - position`, never negative.
    public var lag: Int64 { max(0, highWatermark - position) }

    public init(topic: String, partition: Int32, highWatermark: Int64, position: Int64) {
        self.topic = topic
        self.partition = partition
        self.highWatermark = highWatermark
        self.position = position
    }
}

extension Collection where Element == KafkaPartitionLag {
    /// The sum of ``KafkaPartitionLag/lag`` over all partitions.
    public var totalLag: Int64 {
        reduce(0) { $0 + $1.lag }
    }
}
