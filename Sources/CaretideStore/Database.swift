import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

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

    /// `transaction(_:)`, given up after `timeout` with ``DatabaseTimeout`` (which `TransientError` counts as
    /// transient): a consumer lane or the relay retries instead of waiting forever on a lease or a connection that
    /// died without closing. The abandoned attempt is cancelled; if it still commits later, the caller's retry finds
    /// its work done (processed-event keys, unique constraints), so nothing is applied twice.
    public func transaction<Result: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withDeadline(timeout) { try await self.transaction(body) }
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

/// A database operation did not finish within its deadline.
public struct DatabaseTimeout: Error, Sendable, CustomStringConvertible {
    public let timeout: Duration
    public var description: String { "the database did not answer within \(timeout)" }
}

/// Runs `operation` in a task of its own and returns its result, or throws ``DatabaseTimeout`` after `timeout` and
/// cancels it. Unlike a task group, this never waits for an operation that ignores cancellation (a query on a
/// connection whose server vanished): the caller moves on, and the operation ends in the background.
func withDeadline<Result: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    let race = DeadlineRace<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.pending.withLock { $0 = continuation }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled, race.finish(.failure(DatabaseTimeout(timeout: timeout))) else { return }
                race.operation.withLock { $0 }?.cancel()
            }
            race.operation.withLock {
                $0 = Task {
                    let result: Swift.Result<Result, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    if race.finish(result) { timer.cancel() }
                }
            }
        }
    } onCancel: {
        race.operation.withLock { $0 }?.cancel()
    }
}

/// The shared state of one `withDeadline`: whoever takes the continuation first (the operation or the timer)
/// resumes it; the other finds it gone.
private final class DeadlineRace<Result: Sendable>: Sendable {
    let pending = Mutex<CheckedContinuation<Result, any Error>?>(nil)
    let operation = Mutex<Task<Void, Never>?>(nil)

    func finish(_ result: Swift.Result<Result, any Error>) -> Bool {
        guard let continuation = pending.withLock({ state in defer { state = nil }; return state }) else { return false }
        continuation.resume(with: result)
        return true
    }
}
