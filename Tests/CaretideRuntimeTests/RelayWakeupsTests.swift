import Testing

@testable import CaretideRuntime

/// Which wake-ups send the outbox relay back to the database: a commit it has not seen, or the idle interval.
@Suite struct RelayWakeupsTests {
    static let start = ContinuousClock.now

    @Test("a commit counted before a read began calls for no other read; one counted after it does")
    func commitsSeenByTheRead() {
        let wakeups = RelayWakeups(idleInterval: .milliseconds(50), now: Self.start)
        wakeups.committed()
        let check = wakeups.checkBegins(now: Self.start + .milliseconds(1))
        // The commit's rows were visible to the read: its wake-up, answered after the round, asks for nothing.
        #expect(!wakeups.callsForRead(after: check, now: Self.start + .milliseconds(10)))
        wakeups.committed()
        #expect(wakeups.callsForRead(after: check, now: Self.start + .milliseconds(10)))
        // A check that begins after that commit has seen it in turn.
        let next = wakeups.checkBegins(now: Self.start + .milliseconds(11))
        #expect(!wakeups.callsForRead(after: next, now: Self.start + .milliseconds(12)))
    }

    @Test("the timer is due an idle interval after the last check began, not every interval besides the checks")
    func timerAfterTheLastCheck() {
        let wakeups = RelayWakeups(idleInterval: .milliseconds(50), now: Self.start)
        let check = wakeups.checkBegins(now: Self.start + .milliseconds(100))
        #expect(wakeups.untilTimerIsDue(now: Self.start + .milliseconds(120)) == .milliseconds(30))
        #expect(!wakeups.timerIsDue(after: check, now: Self.start + .milliseconds(149)))
        #expect(!wakeups.callsForRead(after: check, now: Self.start + .milliseconds(149)))
        #expect(wakeups.timerIsDue(after: check, now: Self.start + .milliseconds(150)))
        #expect(wakeups.callsForRead(after: check, now: Self.start + .milliseconds(150)))
        #expect(wakeups.untilTimerIsDue(now: Self.start + .milliseconds(170)) == .zero)
        // A relay that is not the publisher wakes for the timer only: its own commits change nothing about the role.
        wakeups.committed()
        #expect(wakeups.callsForRead(after: check, now: Self.start + .milliseconds(120)))
        #expect(!wakeups.timerIsDue(after: check, now: Self.start + .milliseconds(120)))
    }
}
