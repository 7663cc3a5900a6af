import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Hummingbird

/// The stored ontology releases and their accuracy reports:
/// - `GET /v1/releases`: every kept release, newest first, with which one is serving;
/// - `GET /v1/releases/{releaseId}`: one release with its accuracy report (the recall check of simulated patients).
struct ReleaseRoutes: Sendable {
    let context: ServiceContext
    let catalog: ReleaseCatalog

    struct Listing: Encodable {
        /// The release this instance answers with (it may lag a new import by a few seconds while it loads).
        let serving: OntologyReleaseReference?
        let releases: [ReleaseStore.Summary]
        let message: String?
    }

    func register(on routes: APIRoutes) {
        routes.get("v1/releases", access: .referenceData, summary: "Stored ontology releases, newest first, the serving one named") { _, _ in
            let releases = try await ReleaseStore.summaries(context.database.client, logger: context.logger)
            return try jsonResponse(
                Listing(
                    serving: catalog.release?.reference, releases: releases, message: releases.isEmpty ? SearchRoutes.noOntology : nil))
        }

        routes.get("v1/releases/:releaseId", access: .referenceData, summary: "One stored release with its counts and accuracy report") {
            _, requestContext in
            guard let releaseID = requestContext.parameters.get("releaseId").flatMap(Int.init) else {
                throw HTTPProblem.invalidPathParameter("releaseId", label: "release id", requirement: "must be an integer")
            }
            guard let summary = try await ReleaseStore.summaries(context.database.client, releaseID: releaseID, logger: context.logger).first
            else { throw HTTPProblem(status: .notFound, error: "no release has this id (older releases are pruned)") }
            return try jsonResponse(summary)
        }
    }
}
