import Logging
import PostgresNIO
import ServiceLifecycle

/// A service's connection pool to PostgreSQL, bound to the service's own schema.
///
/// `run()` drives the pool (it is a swift-service-lifecycle `Service`); every query waits for it to be running.
public final class Database: Service, Sendable {
    public let client: PostgresClient
    public let schema: String
    public let configuration: DatabaseConfiguration
    let logger: Logger

    public init(configuration: DatabaseConfiguration, schema: String, logger: Logger) {
        precondition(schema.allSatisfy { $0.isLetter || $0 == "_" }, "schema names are fixed identifiers")
        self.configuration = configuration
        self.schema = schema
        self.logger = logger
        self.client = PostgresClient(configuration: configuration.clientConfiguration(schema: schema), backgroundLogger: logger)
    }

    public func run() async {
        await client.run()
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    ///
    /// Errors come out as they were thrown: PostgresNIO wraps them in `PostgresTransactionError`, which would hide a
    /// refusal (an HTTP 409, an unprocessable event) or a transient failure from the caller that must tell them apart.
    public func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
        }
    }

    /// Runs the pool just for the duration of `body`: for commands and tests that are not a long-running service.
    public func whileRunning<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { await self.run(); return nil }
            defer { group.cancelAll() }
            // Let the pool start before the first lease (PostgresNIO warns about a lease that comes first).
            try await Task.sleep(for: .milliseconds(10))
            return try await body()
        }
    }

    /// True when a trivial query answers within `timeout` (readiness probes).
    public func isReachable(timeout: Duration = .seconds(2)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { [client, logger] in
                do {
                    try await client.query("SELECT 1", logger: logger)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
