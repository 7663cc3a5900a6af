/// The metadata keys of every log line about Kafka, named once (as swift-kafka-client's `KafkaLoggingKeys`): the
/// adapter's own lines and the services' lines about a message's place use the same names.
public enum KafkaLogKey {
    public static let topic = "kafka.topic"
    public static let topics = "kafka.topics"
    public static let partition = "kafka.partition"
    public static let partitions = "kafka.partitions"
    public static let offset = "kafka.offset"
    public static let group = "kafka.group"
    public static let error = "kafka.error"
    public static let reason = "kafka.reason"
    public static let log = "kafka.log"
    public static let facility = "kafka.facility"
    public static let syslogLevel = "kafka.syslog_level"
    public static let state = "kafka.state"
    public static let broker = "kafka.broker"
    public static let brokers = "kafka.brokers"
    public static let bootstrap = "kafka.bootstrap"
    public static let outstanding = "kafka.outstanding"
    /// The librdkafka function a line is about (a teardown or close that did not return in time).
    public static let call = "kafka.call"
    /// How long it was waited for.
    public static let waited = "kafka.waited"
}
