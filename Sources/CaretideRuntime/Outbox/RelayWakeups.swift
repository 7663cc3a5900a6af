import Synchronization

/// When the outbox relay has reason to read. A read sees every row committed before it began, so:
/// - a wake-up from a commit that was counted before the read began brings nothing new: under the single POST's load
///   the relay used to read again after each batch for commits the batch had already carried, and 0.14 of the 1.46
///   statements per request were such empty reads;
/// - the timer, which covers rows no wake-up announces (another replica's, `caretide rescore`'s), is due only when no
///   check began for an idle interval, not every interval besides the reads that commits set off.
///
/// A commit must be counted (`committed()`) after it has committed, so that a read which began after the count sees
/// its rows.
final class RelayWakeups: Sendable {
    /// What a check (a read, or a request for the publisher role) saw when it began.
    struct Check: Sendable {
        let commits: UInt64
        let began: ContinuousClock.Instant
    }

    let idleInterval: Duration
    private let commits = Atomic<UInt64>(0)
    /// When the last check began, in nanoseconds after `origin`.
    private let lastCheck = Atomic<Int64>(0)
    private let origin: ContinuousClock.Instant

    init(idleInterval: Duration, now: ContinuousClock.Instant = .now) {
        self.idleInterval = idleInterval
        origin = now
    }

    /// Counts a commit that wrote outbox rows.
    func committed() { commits.add(1, ordering: .releasing) }

    /// Marks the start of a check, before its statement is sent.
    func checkBegins(now: ContinuousClock.Instant = .now) -> Check {
        lastCheck.store(Self.nanoseconds(now - origin), ordering: .releasing)
        return Check(commits: commits.load(ordering: .acquiring), began: now)
    }

    /// True if a publisher woken after `check` should read again: a commit was counted since, or the idle interval
    /// has passed.
    func callsForRead(after check: Check, now: ContinuousClock.Instant = .now) -> Bool {
        commits.load(ordering: .acquiring) != check.commits || timerIsDue(after: check, now: now)
    }

    /// True once the idle interval has passed since `check` began: what wakes a relay that is not the publisher (a
    /// commit of its own changes nothing about who holds the role).
    func timerIsDue(after check: Check, now: ContinuousClock.Instant = .now) -> Bool { now - check.began >= idleInterval }

    /// How long the timer waits before its next wake-up: the rest of the idle interval since the last check began.
    func untilTimerIsDue(now: ContinuousClock.Instant = .now) -> Duration {
        let sinceLastCheck = now - (origin + .nanoseconds(lastCheck.load(ordering: .acquiring)))
        return max(.zero, idleInterval - sinceLastCheck)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
