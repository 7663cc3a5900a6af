@testable import CaretideRuntime
import Testing

/// The state machine behind `/readyz`'s "progress" check: which worker holds one unit of work for too long.
@Suite struct ProgressTableTests {
    let start = ContinuousClock.now

    @Test("an idle worker is never stalled, however long ago it last worked")
    func idleIsNotStalled() {
        var table = ProgressTable()
        table.register("consumer lane 0", now: start)
        table.began("consumer lane 0", now: start)
        table.finished("consumer lane 0", now: start + .seconds(1))
        #expect(table.stalled(now: start + .seconds(3600), threshold: .seconds(60)).isEmpty)
    }

    @Test("a worker holding work past the threshold is stalled, with how long; not one second before")
    func busyPastThresholdIsStalled() {
        var table = ProgressTable()
        table.began("outbox relay", now: start)
        #expect(table.stalled(now: start + .seconds(60), threshold: .seconds(60)).isEmpty)
        let stalled = table.stalled(now: start + .seconds(61), threshold: .seconds(60))
        #expect(stalled.map(\.name) == ["outbox relay"])
        #expect(stalled.first?.busyFor == .seconds(61))
    }

    @Test("retrying the same work keeps its start: a worker failing over and over ages until it succeeds")
    func retriesKeepTheFirstStart() {
        var table = ProgressTable()
        table.began("outbox relay", now: start)
        table.began("outbox relay", now: start + .seconds(50))
        #expect(table.stalled(now: start + .seconds(70), threshold: .seconds(60)).map(\.name) == ["outbox relay"])
        table.finished("outbox relay", now: start + .seconds(71))
        table.began("outbox relay", now: start + .seconds(72))
        #expect(table.stalled(now: start + .seconds(100), threshold: .seconds(60)).isEmpty)
    }

    @Test("workers are judged one by one, and listed by name")
    func workersAreIndependent() {
        var table = ProgressTable()
        for lane in ["consumer lane 2", "consumer lane 0", "consumer lane 1"] { table.register(lane, now: start) }
        table.began("consumer lane 2", now: start)
        table.began("consumer lane 0", now: start + .seconds(5))
        table.began("consumer lane 1", now: start + .seconds(50))
        #expect(table.stalled(now: start + .seconds(70), threshold: .seconds(60)).map(\.name) == ["consumer lane 0", "consumer lane 2"])
    }

    @Test("registering a worker twice keeps its state")
    func registerIsIdempotent() {
        var table = ProgressTable()
        table.began("consumer lane 0", now: start)
        table.register("consumer lane 0", now: start + .seconds(10))
        #expect(table.stalled(now: start + .seconds(61), threshold: .seconds(60)).count == 1)
    }
}
