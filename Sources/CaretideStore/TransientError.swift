import PostgresNIO

/// Whether a database error is worth retrying (the server is down, restarting, overloaded, or a transaction lost a
/// race) rather than a defect or bad data, which retrying would only repeat.
public enum TransientError {
    public static func isTransient(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        if error is DatabaseTimeout { return true }
        guard let error = error as? PSQLError else {
            // Errors from the network layer below PostgresNIO (connection refused, reset) are transient.
            return String(reflecting: type(of: error)).contains("NIO")
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .queryCancelled:
            return true
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return false }
            // 08: connection exception, 40: transaction rollback (serialization, deadlock),
            // 53: insufficient resources, 57P: operator intervention (shutdown, cannot connect now), 57014: a statement
            // cancelled by statement_timeout (slow, not wrong: dead-lettering the event would lose it).
            return state.hasPrefix("08") || state.hasPrefix("40") || state.hasPrefix("53") || state.hasPrefix("57P") || state == "57014"
        default:
            return false
        }
    }
}
