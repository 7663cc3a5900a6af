import CaretideSchemas
import Foundation
import Testing

@testable import CaretideRuntime

/// What the wrappers every service's handler sits in say of `needsNothing`: an erasure request and a care-team grant
/// are theirs to apply whatever the service's handler says; the rest of `caretide.patients`, where the service does
/// not consume it, they drop; anything else is needed as the service's handler says.
@Suite struct NeedsNothingWrapperTests {
    struct NeedsNothingOfAnything: EventHandler {
        func needsNothing(_ event: ValidatedEvent) -> Bool { true }
        func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {}
    }

    struct NeedsEverything: EventHandler {
        func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {}
    }

    let at = Date(timeIntervalSince1970: 1_795_000_000)

    func event<P: EventPayload>(_ payload: P) throws -> ValidatedEvent {
        try EventCodec().decode(try EventCodec().encode(EventEnvelope(producer: "test", patientID: "p-1", traceID: "t-1", payload: payload)))
    }

    func wrapped(_ service: any EventHandler, ownTopics: Set<Topic> = [.measurements]) -> any EventHandler {
        ErasingHandler(service: CareTeamProjectingHandler(service: service), patientData: PatientData(), ownTopics: ownTopics)
    }

    @Test("an erasure request and a care-team grant are needed, whatever the service's handler says")
    func theWrappersOwnEvents() throws {
        let handler = wrapped(NeedsNothingOfAnything())
        #expect(!handler.needsNothing(try event(PatientErasureRequested(erasureID: UUID(), requestedBy: .operator, requestedAt: at))))
        #expect(!handler.needsNothing(try event(CareTeamGranted(consultantID: "dr-1", grantedAt: at, expiresAt: nil))))
    }

    @Test("anything else is needed as the service's handler says")
    func theServicesSay() throws {
        let reading = try event(BloodPressureRecorded(measurementID: UUID(), systolic: 128, diastolic: 79, takenAt: at, source: .device))
        #expect(wrapped(NeedsNothingOfAnything()).needsNothing(reading))
        #expect(!wrapped(NeedsEverything()).needsNothing(reading))
    }

    @Test("the rest of caretide.patients is needed only by a service that consumes that topic")
    func patientsTopic() throws {
        let demographics = try event(PatientDemographicsChanged(sex: "female", birthDate: "1968-04-02", profileRevision: 3, changedAt: at))
        #expect(wrapped(NeedsEverything()).needsNothing(demographics))
        #expect(!wrapped(NeedsEverything(), ownTopics: [.patients]).needsNothing(demographics))
    }
}
