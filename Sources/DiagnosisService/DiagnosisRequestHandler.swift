import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PhenotypeRanking
import PostgresNIO

/// Answers what pipelines ask on `caretide.diagnosis-requests`:
/// - `diagnosis.requested` → `diagnosis.ranked` or `diagnosis.refused` with the same request id; a request id already
///   answered is not answered again (the answer went out with the first);
/// - `ontology-update.requested` → imports the release in this event's transaction and publishes
///   `ontology-release.imported`; a release that cannot be imported goes to the dead-letter topic with the reason and
///   the previous release keeps serving.
struct DiagnosisRequestHandler: EventHandler {
    let catalog: ReleaseCatalog
    let importOptions: OntologyImportOptions
    let releaseFiles: ReleaseFileGuard

    /// A full import computes its null distributions inside the event's transaction (about 30 s on two cores), so
    /// the transaction is given ten minutes rather than the default, which would abort and retry it forever.
    var transactionTimeout: Duration? { .seconds(600) }

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        switch try DiagnosisInput(event) {
        case .diagnosisRequested(let request):
            try await answer(request, event: event, context: context)
        case .ontologyUpdateRequested(let update):
            try await importRelease(update, event: event, context: context)
        case .notConsumed(let type):
            throw UnprocessableEvent("diagnosis-service does not consume \(type.rawValue)")
        }
    }
}
