import CaretideRuntime

/// What becomes of a webhook delivery after an attempt: delivered, tried again later, or given up on (its record
/// kept as a dead letter operators can read and retry). Pure, so every rule is unit-tested.
///
/// The rules:
/// - any 2xx answer delivers;
/// - a network failure, a timeout, 408, 425, 429 or any 5xx is tried again after a delay that doubles from
///   `initialDelay` up to `maximumDelay` (`initialDelay × 2^(attempt − 1)`), until `maximumAttempts` have been made;
/// - any other answer (3xx: redirects are not followed; 4xx: the receiver refused this body) is given up at once,
///   because sending the same signed body again would be refused again.
public struct WebhookRetryPolicy: Sendable, Equatable {
    let schedule: RetrySchedule

    public init(maximumAttempts: Int, initialDelay: Duration, maximumDelay: Duration) {
        schedule = RetrySchedule(maximumAttempts: maximumAttempts, initialDelay: initialDelay, maximumDelay: maximumDelay)
    }

    var maximumAttempts: Int { schedule.maximumAttempts }

    /// Ten attempts over about three hours: 30 s, 1, 2, 4, 8, 16, 32 minutes, then hourly.
    public static let standard = WebhookRetryPolicy(maximumAttempts: 10, initialDelay: .seconds(30), maximumDelay: .seconds(3600))

    enum Outcome: Sendable, Equatable {
        /// The receiver answered with this status.
        case answered(status: Int)
        /// No answer: the connection failed or timed out.
        case unreachable
    }

    enum Next: Sendable, Equatable {
        case delivered
        case retry(after: Duration)
        case deadLetter
    }

    /// What follows attempt number `attempt` (1 for the first) that ended in `outcome`.
    func next(after outcome: Outcome, attempt: Int) -> Next {
        switch outcome {
        case .answered(let status) where (200..<300).contains(status):
            return .delivered
        case .answered(let status) where !Self.isWorthRetrying(status):
            return .deadLetter
        case .answered, .unreachable:
            return schedule.allowsAnother(after: attempt) ? .retry(after: delay(after: attempt)) : .deadLetter
        }
    }

    func delay(after attempt: Int) -> Duration { schedule.delay(after: attempt) }

    /// Statuses that say "not now" rather than "not this": request timeout, too early, too many requests, and
    /// every server error.
    static func isWorthRetrying(_ status: Int) -> Bool {
        status == 408 || status == 425 || status == 429 || (500..<600).contains(status)
    }
}
