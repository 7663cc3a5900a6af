internal import Foundation

/// A consumer's committed position that the broker no longer holds: the partition's retention deleted the messages
/// before the group read them (it fell further behind than the topic keeps), so librdkafka jumps to
/// `auto.offset.reset` and the messages in between are never seen. Nothing else reports it: librdkafka only logs it,
/// as a warning with the facility `OFFSET` (rdkafka_offset.c, `rd_kafka_offset_reset`: resets caused by an error are
/// logged at LOG_WARNING, the others only at debug), e.g.
/// `[thrd:main]: caretide.measurements [2]: offset reset (at offset 1200 (leader epoch 0), broker 1) to offset
/// BEGINNING (leader epoch -1): fetch failed due to requested offset not available on the broker: Broker: Offset out
/// of range`.
public struct OffsetReset: Sendable, Equatable {
    public let topic: String
    public let partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    /// The reset a librdkafka log line reports, or nil for any other line.
    init?(syslogLevel: Int32, facility: String, text: String) {
        // Warning or worse only: a reset at debug level is a first start without a committed position, not a loss.
        guard facility == "OFFSET", syslogLevel <= 4, text.contains("]: offset reset") else { return nil }
        var line = Substring(text)
        // The thread name librdkafka puts first (`log.thread.name`, on by default).
        if line.hasPrefix("[thrd:"), let end = line.range(of: "]: ") { line = line[end.upperBound...] }
        guard let open = line.range(of: " ["), let close = line[open.upperBound...].firstIndex(of: "]"),
            let partition = Int32(line[open.upperBound..<close])
        else { return nil }
        topic = String(line[..<open.lowerBound])
        self.partition = partition
    }
}
