import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging
import PhenotypeRanking

extension DiagnosisRequestHandler {
    /// `ontology-update.requested` → the release imported in the event's transaction, and `ontology-release.imported`.
    func importRelease(_ update: OntologyUpdateRequested, event: ValidatedEvent, context: HandlerContext) async throws {
        if let known = try await AnsweredRequests(context).releaseImported(byUpdate: update.updateID) {
            context.logger.notice(
                "ontology update already imported", metadata: [LogKey.updateID: "\(update.updateID)", LogKey.releaseID: "\(known)"])
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
        try await context.publish(
            context.envelope(
                for: OntologyReleaseImported(
                    updateID: update.updateID, release: report.release, termCount: report.termCount, diseaseCount: report.diseaseCount,
                    annotationCount: report.annotationCount, recallFirst: first?.rankedFirst, recallTopTen: first?.inTopTen),
                causedBy: event))
    }
}
