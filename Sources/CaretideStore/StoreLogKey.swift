/// The metadata keys of the PostgreSQL adapter's log lines (migrations, the local cluster), named once as
/// `KafkaLogKey` names the broker's. The services' own keys are the runtime's `LogKey`.
public enum StoreLogKey {
    public static let schema = "schema"
    public static let track = "track"
    public static let version = "version"
    public static let directory = "directory"
    public static let port = "port"
}
