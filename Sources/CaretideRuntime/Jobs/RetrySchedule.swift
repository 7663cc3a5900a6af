/// When a delivery job tries again (webhooks, e-mail): after a delay that doubles from `initialDelay` up to
/// `maximumDelay` (`initialDelay × 2^(attempt − 1)`), until `maximumAttempts` have been made. What counts as worth
/// another attempt is each job's own rule; the schedule is shared.
public struct RetrySchedule: Sendable, Equatable {
    public let maximumAttempts: Int
    public let initialDelay: Duration
    public let maximumDelay: Duration

    /// At least one attempt, whatever is asked.
    public init(maximumAttempts: Int, initialDelay: Duration, maximumDelay: Duration) {
        self.maximumAttempts = max(maximumAttempts, 1)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Whether attempt `attempt` (1 for the first) may be followed by another.
    public func allowsAnother(after attempt: Int) -> Bool { attempt < maximumAttempts }

    /// The wait after attempt `attempt` failed: doubling from `initialDelay`, never over `maximumDelay`.
    public func delay(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
