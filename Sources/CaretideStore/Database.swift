public import Logging
public import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// A service's connection pool to PostgreSQL, bound to the service's own schema.
///
/// `run()` drives the pool (it is a swift-service-lifecycle `Service`); every query waits for it to be running.
public final class Database: Service, Sendable {
    public let client: PostgresClient
    public let schema: String
    public let configuration: DatabaseConfiguration
    public let logger: Logger

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

    /// A session on the pool, each statement on a connection of its own: what a store outside a service's context
    /// (a command, a start-up check) is made from.
    public func session(logger: Logger? = nil) -> StoreSession {
        StoreSession(pool: client, logger: logger ?? self.logger)
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
    /// transient): a consumer lane, the relay or a request moves on instead of waiting forever on a lease, or on a
    /// query whose connection died without the driver noticing (seen during `pg_ctl restart`). The abandoned
    /// attempt's connection is closed, which ends its transaction on the server and frees its locks and pool slot;
    /// should its commit still have gone through, the caller's retry finds the work done (processed-event keys,
    /// unique constraints), so nothing is applied twice.
    public func transaction<Result: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let holder = LeasedConnection()
        return try await withDeadline(timeout) {
            try await self.transaction { connection in
                holder.set(connection)
                return try await body(connection)
            }
        } onTimeout: {
            holder.close()
        }
    }

    /// Runs the pool just for the duration of `body`: for commands and tests that are not a long-running service.
    public func whileRunning<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                await self.run()
                return nil
            }
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

/// The connection a deadline-bound transaction leased, so the deadline can close it.
private final class LeasedConnection: Sendable {
    private let connection = Mutex<PostgresConnection?>(nil)

    func set(_ leased: PostgresConnection) { connection.withLock { $0 = leased } }

    func close() {
        guard let leased = connection.withLock({ $0 }) else { return }
        Task { try? await leased.close() }
    }
}

/// Runs `operation` in a task of its own and returns its result, or throws ``DatabaseTimeout`` after `timeout`
/// (cancelling the operation and calling `onTimeout`), or `CancellationError` as soon as the caller is cancelled.
/// Unlike a task group, this never waits for an operation that ignores cancellation: the caller moves on, and the
/// operation ends in the background.
public func withDeadline<Result: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Result, onTimeout: @escaping @Sendable () -> Void = {}
) async throws -> Result {
    let race = DeadlineRace<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            // The continuation is registered first, so every way of finishing (operation, timer, cancellation)
            // finds it; whichever comes first resumes it.
            guard race.start(continuation) else { return }
            let operationTask = Task {
                let result: Swift.Result<Result, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                race.finish(result)
            }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled, race.finish(.failure(DatabaseTimeout(timeout: timeout))) else { return }
                operationTask.cancel()
                onTimeout()
            }
            race.attach(operation: operationTask, timer: timer)
        }
    } onCancel: {
        race.cancel()
    }
}

/// The shared state of one `withDeadline`.
private final class DeadlineRace<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var tasks: (operation: Task<Void, Never>, timer: Task<Void, Never>)?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Registers the continuation; false (having resumed it) when the caller was cancelled before it got here.
    func start(_ continuation: CheckedContinuation<Result, any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func attach(operation: Task<Void, Never>, timer: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.tasks = (operation, timer)
            return state.cancelled
        }
        if cancelled {
            operation.cancel()
            timer.cancel()
        }
    }

    /// Resumes the caller with `result` unless it was resumed already; true if this call did. The timer is no longer
    /// needed either way.
    @discardableResult
    func finish(_ result: Swift.Result<Result, any Error>) -> Bool {
        let (continuation, timer) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.tasks?.timer)
        }
        guard let continuation else { return false }
        timer?.cancel()
        continuation.resume(with: result)
        return true
    }

    /// The caller was cancelled: it is resumed at once, and the operation is asked to stop.
    func cancel() {
        let (continuation, tasks) = state.withLock { state in
            state.cancelled = true
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        tasks?.operation.cancel()
        tasks?.timer.cancel()
        continuation?.resume(throwing: CancellationError())
    }
}
