import Hummingbird
import Testing

@testable import CaretideRuntime

/// The state machine behind `/readyz`'s "progress" check: which worker holds one unit of work for too long.
@Suite struct ProgressTableTests {
    let start = ContinuousClock.now

    @Test("an idle worker is never stalled, however long ago it last worked")
    func idleIsNotStalled() {
        var table = ProgressTable()
        table.register("consumer lane 0", threshold: .seconds(60), now: start)
        table.began("consumer lane 0", now: start)
        table.finished("consumer lane 0", now: start + .seconds(1))
        #expect(table.stalled(now: start + .seconds(3600)).isEmpty)
    }

    @Test("a worker holding work past the threshold is stalled, with how long; not one second before")
    func busyPastThresholdIsStalled() {
        var table = ProgressTable()
        table.register("outbox relay", threshold: .seconds(60), now: start)
        table.began("outbox relay", now: start)
        #expect(table.stalled(now: start + .seconds(60)).isEmpty)
        let stalled = table.stalled(now: start + .seconds(61))
        #expect(stalled.map(\.name) == ["outbox relay"])
        #expect(stalled.first?.busyFor == .seconds(61))
    }

    @Test("retrying the same work keeps its start: a worker failing over and over ages until it succeeds")
    func retriesKeepTheFirstStart() {
        var table = ProgressTable()
        table.register("outbox relay", threshold: .seconds(60), now: start)
        table.began("outbox relay", now: start)
        table.began("outbox relay", now: start + .seconds(50))
        #expect(table.stalled(now: start + .seconds(70)).map(\.name) == ["outbox relay"])
        table.finished("outbox relay", now: start + .seconds(71))
        table.began("outbox relay", now: start + .seconds(72))
        #expect(table.stalled(now: start + .seconds(100)).isEmpty)
    }

    @Test("workers are judged one by one, and listed by name")
    func workersAreIndependent() {
        var table = ProgressTable()
        for lane in ["consumer lane 2", "consumer lane 0", "consumer lane 1"] { table.register(lane, threshold: .seconds(60), now: start) }
        table.began("consumer lane 2", now: start)
        table.began("consumer lane 0", now: start + .seconds(5))
        table.began("consumer lane 1", now: start + .seconds(50))
        #expect(table.stalled(now: start + .seconds(70)).map(\.name) == ["consumer lane 0", "consumer lane 2"])
    }

    @Test("registering a worker twice keeps its state")
    func registerIsIdempotent() {
        var table = ProgressTable()
        table.register("consumer lane 0", threshold: .seconds(60), now: start)
        table.began("consumer lane 0", now: start)
        table.register("consumer lane 0", threshold: .seconds(600), now: start + .seconds(10))
        #expect(table.stalled(now: start + .seconds(61)).count == 1)
    }

    @Test("each worker has its own threshold: a diagnosis lane's import is not a stall at 61 s")
    func thresholdsPerWorker() {
        var table = ProgressTable()
        table.register("consumer lane 0", threshold: .seconds(600), now: start)
        table.register("outbox relay", threshold: .seconds(60), now: start)
        table.began("consumer lane 0", now: start)
        table.began("outbox relay", now: start)
        #expect(table.stalled(now: start + .seconds(61)).map(\.name) == ["outbox relay"])
        #expect(table.stalled(now: start + .seconds(601)).map(\.name) == ["consumer lane 0", "outbox relay"])
    }

    @Test("work on an unregistered worker is ignored")
    func unregisteredIsIgnored() {
        var table = ProgressTable()
        table.began("stranger", now: start)
        #expect(table.stalled(now: start + .seconds(3600)).isEmpty)
    }
}

@Suite struct RequestIDTests {
    @Test("a caller's X-Request-ID is used only if it looks like an id")
    func requestIDIsSanitised() {
        #expect(RequestIDMiddleware.wellFormed("4bf92f3577b34da6a3ce929d0e0e4736") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(RequestIDMiddleware.wellFormed("req_1.2-3") == "req_1.2-3")
        #expect(RequestIDMiddleware.wellFormed("Jane Roe has HIV") == nil)
        #expect(RequestIDMiddleware.wellFormed(String(repeating: "a", count: 65)) == nil)
        #expect(RequestIDMiddleware.wellFormed("") == nil)
        #expect(RequestIDMiddleware.wellFormed(nil) == nil)
    }

    @Test("a W3C traceparent gives its trace id, and wins over X-Request-ID; a malformed one is ignored")
    func traceparent() {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(RequestIDMiddleware.requestID(traceparent: header, requestID: "other") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(RequestIDMiddleware.requestID(traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01", requestID: "r1") == "r1")
        #expect(RequestIDMiddleware.requestID(traceparent: "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", requestID: nil) == nil)
        #expect(RequestIDMiddleware.requestID(traceparent: "garbage", requestID: nil) == nil)
    }

    @Test("Authorization: Bearer, the scheme in any case; anything else is no bearer token")
    func bearerToken() {
        #expect(AuthenticationMiddleware.bearerToken("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(AuthenticationMiddleware.bearerToken("bearer abc") == "abc")
        #expect(AuthenticationMiddleware.bearerToken("Basic dXNlcjpwYXNz") == nil)
        #expect(AuthenticationMiddleware.bearerToken("Bearer ") == nil)
        #expect(AuthenticationMiddleware.bearerToken("Bearer") == nil)
        #expect(AuthenticationMiddleware.bearerToken("Bearer \t abc.def \t") == "abc.def")
        #expect(AuthenticationMiddleware.bearerToken("Bearer \t \t") == nil)
    }

    @Test("a request without a trace of its own gets a random W3C trace id")
    func ownRequestIDs() {
        let ids = (0..<100).map { _ in CaretideRequestContext.newRequestID() }
        for id in ids {
            #expect(RequestIDMiddleware.requestID(traceparent: "00-\(id)-00f067aa0ba902b7-01", requestID: nil) == id)
        }
        #expect(Set(ids).count == ids.count)
        // Every hex digit shows up in every position over enough ids: none is fixed by a mistake in the writing.
        let more = (0..<2_000).map { _ in Array(CaretideRequestContext.newRequestID().utf8) }
        for position in 0..<32 { #expect(Set(more.map { $0[position] }).count == 16) }
    }
}
