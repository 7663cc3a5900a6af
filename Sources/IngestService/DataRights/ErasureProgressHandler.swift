import CaretideRuntime
import CaretideSchemas

/// ingest-service's consumer: the services' confirmations of an erasure, counted into its request's progress. Its
/// own erasure arrives on `caretide.patients` and is applied by the runtime (`PatientData`) before this sees
/// anything; the demographics it announces there itself are not for it.
struct ErasureProgressHandler: EventHandler {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        switch event.eventType {
        case .patientErasureConfirmed:
            try await ErasureStore(context).confirm(try event.payload(PatientErasureConfirmed.self))
        case .patientDemographicsChanged:
            return
        default:
            throw UnprocessableEvent("ingest-service does not consume \(event.eventType.rawValue)")
        }
    }
}
