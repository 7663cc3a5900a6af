import CaretideRuntime
import CaretideSchemas

/// ingest-service's consumer: each event goes to the capability it is for. Ingest records what others send over
/// HTTP and Kafka's inbound topics; the events it consumes are the other services' answers about erasures.
struct IngestHandler: EventHandler {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        switch try IngestInput(event) {
        case .patientErasureConfirmed(let confirmation):
            try await ErasureStore(context).confirm(confirmation)
        case .nothingToDo:
            return
        case .notConsumed(let type):
            throw UnprocessableEvent("ingest-service does not consume \(type.rawValue)")
        }
    }
}
