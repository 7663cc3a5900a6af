/// Exponential backoff with a ceiling, for retrying transient failures (database or broker down).
public struct Backoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    private(set) var current: Duration

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
        self.current = initial
    }

    /// The delay to wait now; the next one doubles, up to `maximum`.
    public mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    public mutating func reset() { current = initial }
}

/// Runs `operation` until it succeeds, retrying with backoff while `isTransient` says the failure is worth retrying.
/// Cancellation ends the wait. Non-transient errors are rethrown at once.
public func retrying<T: Sendable>(
    backoff: Backoff = Backoff(),
    isTransient: (any Error) -> Bool,
    onRetry: (any Error, Duration) -> Void,
    _ operation: () async throws -> T
) async throws -> T {
    var backoff = backoff
    while true {
        do {
            return try await operation()
        } catch {
            guard isTransient(error), !Task.isCancelled else { throw error }
            let delay = backoff.next()
            onRetry(error, delay)
            try await Task.sleep(for: delay)
        }
    }
}
