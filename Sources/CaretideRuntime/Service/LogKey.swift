import CaretideStore

/// The metadata keys of the services' log lines, named once. Ids and counts only: no key here carries a name, a
/// value, free text or a token. A service adds the keys of its own features in an extension beside them; the keys
/// of a message's place on Kafka are `KafkaLogKey`'s.
public enum LogKey {
    public static let service = "service"
    public static let requestID = "requestId"
    public static let eventID = "eventId"
    public static let eventType = "eventType"
    public static let method = "method"
    public static let route = "route"
    public static let status = "status"
    public static let milliseconds = "milliseconds"
    public static let seconds = "seconds"
    public static let bytes = "bytes"
    public static let count = "count"
    public static let erasureID = "erasureId"
    public static let kind = "kind"
    public static let job = "job"
    public static let schema = StoreLogKey.schema
    public static let server = "server"
    public static let host = "host"
    public static let port = "port"
    public static let error = "error"
    public static let errorType = "errorType"
    public static let sqlState = "sqlState"
    public static let retriable = "retriable"
    public static let retryIn = "retryIn"
    public static let reason = "reason"
    public static let lastPosition = "lastPosition"
}
