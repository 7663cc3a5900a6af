public import Foundation

/// One record header as it travels: a name and bytes, or no value at all (a null header). Kafka allows a name
/// more than once, and their order is part of the message. Names are UTF-8 strings in Kafka's protocol; values are
/// any bytes.
public struct KafkaHeader: Sendable, Hashable {
    public var name: String
    public var value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }
}

/// A message to publish. The key is the partitioning key: messages with the same key go to the same partition and
/// keep their order.
public struct OutgoingMessage: Sendable, Hashable {
    public var topic: String
    /// The key's bytes; nil for a message without a key.
    public var keyBytes: [UInt8]?
    /// The value's bytes; nil for a null value (a tombstone).
    public var valueBytes: [UInt8]?
    /// Headers sent first, in this order, as given (a copy of a received message's headers).
    public var headerFields: [KafkaHeader]
    /// Headers sent after `headerFields`, sorted by name.
    public var headers: [String: String]

    public init(topic: String, key: String? = nil, value: [UInt8], headers: [String: String] = [:]) {
        self.topic = topic
        self.keyBytes = key.map { Array($0.utf8) }
        self.valueBytes = value
        self.headerFields = []
        self.headers = headers
    }

    /// `message` unchanged (key, value and headers byte for byte, null stays null), sent to `topic` with
    /// `addingHeaders` after its own.
    public init(copying message: IncomingMessage, to topic: String, addingHeaders: [String: String]) {
        self.topic = topic
        self.keyBytes = message.keyBytes
        self.valueBytes = message.valueBytes
        self.headerFields = message.headerFields
        self.headers = addingHeaders
    }

    /// The key as text (invalid UTF-8 shown as U+FFFD).
    public var key: String? { keyBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The value, empty for a null value.
    public var value: [UInt8] { valueBytes ?? [] }
}

/// A message received by ``KafkaConsumer``. Its bytes were copied out of librdkafka as they were.
public struct IncomingMessage: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    /// The key's bytes as received; nil when the message has no key.
    public var keyBytes: [UInt8]?
    /// The value's bytes as received; nil for a null value.
    public var valueBytes: [UInt8]?
    /// Every header in the order received, values as bytes.
    public var headerFields: [KafkaHeader]
    /// The producer's create time or the broker's log-append time, when the message carries one.
    public var timestamp: Date?

    public init(
        topic: String, partition: Int32, offset: Int64, keyBytes: [UInt8]?, value: [UInt8]?, headerFields: [KafkaHeader] = [],
        timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.keyBytes = keyBytes
        self.valueBytes = value
        self.headerFields = headerFields
        self.timestamp = timestamp
    }

    public init(
        topic: String, partition: Int32, offset: Int64, key: String? = nil, value: [UInt8], headers: [String: String] = [:],
        timestamp: Date? = nil
    ) {
        self.init(
            topic: topic, partition: partition, offset: offset, keyBytes: key.map { Array($0.utf8) }, value: value,
            headerFields: headers.sorted { $0.key < $1.key }.map { KafkaHeader(name: $0.key, value: Array($0.value.utf8)) },
            timestamp: timestamp)
    }

    /// The key as text (invalid UTF-8 shown as U+FFFD); compare `keyBytes` where the exact bytes matter.
    public var key: String? { keyBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The value, empty for a null value.
    public var value: [UInt8] { valueBytes ?? [] }
    /// The headers as text, the last of a repeated name winning (invalid UTF-8 shown as U+FFFD, null as "").
    public var headers: [String: String] {
        var headers: [String: String] = [:]
        for header in headerFields { headers[header.name] = header.value.map { String(decoding: $0, as: UTF8.self) } ?? "" }
        return headers
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
