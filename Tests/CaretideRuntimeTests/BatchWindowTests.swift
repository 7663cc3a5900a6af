import CaretideSchemas
import Testing

@testable import CaretideRuntime

/// Which window a consumer waits out between small batches: the operator's `CONSUMER_BATCH_WINDOW_MS`, else the
/// handler's own, else the runtime's 50 ms; the wrappers every service's handler sits in keep the handler's.
@Suite struct BatchWindowTests {
    struct Plain: EventHandler {
        func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {}
    }

    struct EndsInAlerts: EventHandler {
        var batchWindow: Duration? { .milliseconds(20) }
        func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {}
    }

    @Test("unset, a handler without a window of its own waits the runtime's 50 ms and one with its own waits that")
    func handlersOwnWindow() {
        let limits = RuntimeLimits()
        #expect(limits.consumerBatchWindow == nil)
        #expect(ConsumedMessages.events(Plain()).batchWindow(limits) == .milliseconds(50))
        #expect(ConsumedMessages.events(EndsInAlerts()).batchWindow(limits) == .milliseconds(20))
    }

    @Test("the operator's window wins over the handler's, 0 included")
    func operatorsWindowWins() {
        var limits = RuntimeLimits()
        for window in [Duration.milliseconds(35), .milliseconds(100), .zero] {
            limits.consumerBatchWindow = window
            #expect(ConsumedMessages.events(EndsInAlerts()).batchWindow(limits) == window)
            #expect(ConsumedMessages.events(Plain()).batchWindow(limits) == window)
        }
    }

    @Test("the care-team and erasure wrappers pass the service's window on")
    func wrappersKeepTheWindow() {
        let projecting = CareTeamProjectingHandler(service: EndsInAlerts())
        #expect(projecting.batchWindow == .milliseconds(20))
        #expect(CareTeamProjectingHandler(service: Plain()).batchWindow == nil)
        let erasing = ErasingHandler(service: projecting, patientData: PatientData(), ownTopics: [])
        #expect(ConsumedMessages.events(erasing).batchWindow(RuntimeLimits()) == .milliseconds(20))
    }
}
