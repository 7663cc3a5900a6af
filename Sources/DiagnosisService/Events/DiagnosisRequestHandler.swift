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

    private func answer(_ request: DiagnosisRequested, event: ValidatedEvent, context: HandlerContext) async throws {
        let outcome = catalog.rank(RankingQuery(request), requestID: request.requestID)
        let (name, releaseID): (String, Int?) = switch outcome {
        case .ranked(let ranked): ("ranked", ranked.release.releaseID)
        case .refused(let refused): (refused.reason.rawValue, nil)
        }
        guard try await AnsweredRequests.recordFirst(
            requestID: request.requestID, eventID: event.eventID, outcome: name, releaseID: releaseID, on: context.connection, logger: context.logger)
        else {
            context.logger.notice("diagnosis request already answered", metadata: ["requestId": "\(request.requestID)"])
            return
        }
        switch outcome {
        case .ranked(let ranked): try await context.publish(context.envelope(for: ranked, causedBy: event))
        case .refused(let refused): try await context.publish(context.envelope(for: refused, causedBy: event))
        }
    }

    private func importRelease(_ update: OntologyUpdateRequested, event: ValidatedEvent, context: HandlerContext) async throws {
        if let known = try await AnsweredRequests.releaseImported(byUpdate: update.updateID, on: context.connection, logger: context.logger) {
            context.logger.notice("ontology update already imported", metadata: ["updateId": "\(update.updateID)", "releaseId": "\(known)"])
            return
        }
        let report: OntologyImportReport
        do {
            let ontologyFile = try releaseFiles.resolve(update.ontologyFile, which: "ontology")
            let annotationFile = try update.annotationFile.map { name throws(OntologyImportError) in
                try releaseFiles.resolve(name, which: "annotation")
            }
            report = try await OntologyImporter.importFiles(
                kind: update.kind, ontologyFile: ontologyFile, annotationFile: annotationFile, updateID: update.updateID,
                on: context.connection, options: importOptions, logger: context.logger)
        } catch let error as OntologyImportError {
            throw UnprocessableEvent(error.description)
        } catch let error as PhenotypeRankingError {
            throw UnprocessableEvent("the release files are invalid: \(error.description)")
        }
        let first = report.accuracy?.scenarios.first
        try await context.publish(context.envelope(
            for: OntologyReleaseImported(
                updateID: update.updateID, release: report.release, termCount: report.termCount, diseaseCount: report.diseaseCount,
                annotationCount: report.annotationCount, recallFirst: first?.rankedFirst, recallTopTen: first?.inTopTen),
            causedBy: event))
    }
}
