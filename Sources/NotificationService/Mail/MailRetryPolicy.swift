import CaretideRuntime

/// What becomes of a report e-mail after an attempt to hand it to the relay. Pure, so every rule is unit-tested:
/// - accepted by the relay: `sent` (what happens after the relay is the relay's: SMTP has no read receipt);
/// - a 4xx answer, no answer, a lost connection or a timeout: tried again after a delay that doubles from
///   `initialDelay` up to `maximumDelay`, until `maximumAttempts` have been made, then `failed`;
/// - a 5xx answer (the relay refuses this sender, recipient or message) or a relay unusable as configured: `failed`
///   at once, because the same message would be refused again.
public struct MailRetryPolicy: Sendable, Equatable {
    let schedule: RetrySchedule

    public init(maximumAttempts: Int, initialDelay: Duration, maximumDelay: Duration) {
        schedule = RetrySchedule(maximumAttempts: maximumAttempts, initialDelay: initialDelay, maximumDelay: maximumDelay)
    }

    /// Eight attempts over about two hours: 1, 2, 4, 8, 16, 32 minutes, then hourly.
    public static let standard = MailRetryPolicy(maximumAttempts: 8, initialDelay: .seconds(60), maximumDelay: .seconds(3600))

    enum Next: Sendable, Equatable {
        case sent
        case retry(after: Duration)
        case failed
    }

    /// What follows attempt `attempt` (1 for the first): nil failure for an accepted message.
    func next(after failure: MailFailure?, attempt: Int) -> Next {
        guard let failure else { return .sent }
        guard failure.isTransient, schedule.allowsAnother(after: attempt) else { return .failed }
        return .retry(after: schedule.delay(after: attempt))
    }
}
