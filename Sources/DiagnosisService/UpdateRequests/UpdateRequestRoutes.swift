import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// A consultant asks for the ontology to be checked for an update; an operator approves (the import starts) or
/// refuses. Until now only an operator could start one (`caretide hpo import`, or an `ontology-update.requested`
/// event).
/// - `POST /v1/ontology-update-requests`: ask (201); the answer says which release is loaded and which is the newest
///   known (the files staged in `HPO_DATA_DIR`), and whether that is newer;
/// - `GET /v1/ontology-update-requests[/{requestId}]`: the requests, newest first (a consultant's own; an operator's
///   all), each with the same comparison as it stands now;
/// - `POST …/{requestId}/approval` (operator): publishes the `ontology-update.requested` event that imports the staged
///   files, in the transaction that records the decision; 409 unless the request is pending and a newer release is
///   staged. The request reads `imported`, with the release, once the import is in;
/// - `POST …/{requestId}/refusal` (operator).
struct UpdateRequestRoutes: Sendable {
    let context: ServiceContext
    let catalog: ReleaseCatalog
    let releaseFiles: ReleaseFileGuard

    /// A request as the API shows it.
    struct View: Encodable {
        let requestId: UUID
        let requestedBy: String
        let requestedAt: Date
        /// `pending`, `approved` (the import is under way, or failed: see the dead letters), `imported` or `refused`.
        let status: String
        let decidedBy: String?
        let decidedAt: Date?
        let updateId: String?
        let importedReleaseId: Int?
        let loaded: OntologyReleaseReference?
        let newestKnown: StagedRelease?
        /// Whether the newest known release differs from the loaded one.
        let updateAvailable: Bool
    }

    struct Listing: Encodable {
        let items: [View]
    }

    private static let notFound = HTTPProblem(status: .notFound, error: "no ontology update request has this id")

    func register(on routes: APIRoutes) {
        let base = "v1/ontology-update-requests"

        routes.post(
            base, access: .ontologyUpdates(.ask), summary: "Ask for the ontology to be checked for an update (an operator decides)", body: [],
            bodyLimit: APIRoutes.noBody
        ) {
            _, requestContext in
            let row = try await UpdateRequestStore(context).insert(requestedBy: try Self.caller(requestContext).subject)
            return try jsonResponse(view(row), status: .created)
        }

        routes.get(base, access: .ontologyUpdates(.ask), summary: "Ontology update requests, newest first (a consultant's own)") {
            _, requestContext in
            let caller = try Self.caller(requestContext)
            let rows = try await UpdateRequestStore(context).list(
                requestedBy: caller.role == .operator ? nil : caller.subject, limit: 100)
            return try jsonResponse(Listing(items: rows.map(view)))
        }

        routes.get(base + "/:requestId", access: .ontologyUpdates(.ask), summary: "An ontology update request and the releases it compares") {
            _, requestContext in
            try jsonResponse(view(try await visible(requestContext)))
        }

        routes.post(
            base + "/:requestId/approval", access: .ontologyUpdates(.decide), summary: "Approve: import the staged release", body: [],
            bodyLimit: APIRoutes.noBody
        ) {
            _, requestContext in
            let row = try await visible(requestContext)
            if let refusal = Self.approvalRefusal(status: row.status, view(row)) { throw HTTPProblem(status: .conflict, error: refusal) }
            let updateID = "update-request-\(row.requestID.uuidString.lowercased())"
            let operatorID = try Self.caller(requestContext).subject
            let decided = try await context.transaction { handler in
                guard
                    try await UpdateRequestStore(handler).decide(
                        row.requestID, status: "approved", by: operatorID, updateID: updateID)
                else { return false }
                try await handler.publish(
                    EventEnvelope(
                        producer: handler.producer, patientID: nil, traceID: requestContext.requestID,
                        payload: OntologyUpdateRequested(
                            updateID: updateID, kind: .full, ontologyFile: StagedRelease.ontologyFile, annotationFile: StagedRelease.annotationFile)))
                return true
            }
            guard decided else { throw HTTPProblem(status: .conflict, error: "the request was decided meanwhile") }
            return try jsonResponse(view(try await reload(row.requestID)))
        }

        routes.post(
            base + "/:requestId/refusal", access: .ontologyUpdates(.decide), summary: "Refuse an ontology update request", body: [],
            bodyLimit: APIRoutes.noBody
        ) {
            _, requestContext in
            let row = try await visible(requestContext)
            let operatorID = try Self.caller(requestContext).subject
            let decided = try await context.transaction { handler in
                try await UpdateRequestStore(handler).decide(
                    row.requestID, status: "refused", by: operatorID, updateID: nil)
            }
            guard decided else { throw HTTPProblem(status: .conflict, error: "the request is \(row.status), not pending") }
            return try jsonResponse(view(try await reload(row.requestID)))
        }
    }

    /// The request named by the path, if the caller may see it: a consultant sees their own (another's reads as
    /// unknown, so ids cannot be probed), an operator every one.
    private func visible(_ requestContext: CaretideRequestContext) async throws -> UpdateRequestStore.Row {
        guard let id = requestContext.parameters.get("requestId").flatMap(UUID.init(uuidString:)) else {
            throw HTTPProblem.invalidPathParameter("requestId", label: "request id", requirement: "must be a UUID")
        }
        let caller = try Self.caller(requestContext)
        guard let row = try await UpdateRequestStore(context).load(id),
            caller.role == .operator || row.requestedBy == caller.subject
        else { throw Self.notFound }
        return row
    }

    private func reload(_ id: UUID) async throws -> UpdateRequestStore.Row {
        guard let row = try await UpdateRequestStore(context).load(id) else { throw Self.notFound }
        return row
    }

    private static func caller(_ requestContext: CaretideRequestContext) throws -> Identity {
        guard let identity = requestContext.identity else { throw HTTPProblem(status: .unauthorized, error: "no verified identity") }
        return identity
    }

    /// The request with the loaded and the newest known release as they are now.
    private func view(_ row: UpdateRequestStore.Row) -> View {
        View(row, loaded: catalog.release?.reference, staged: StagedRelease.read(releaseFiles))
    }

    /// Why a request with `status` cannot be approved now (a 409's message), or nil: it must be pending, and a staged
    /// release must differ from the loaded one.
    static func approvalRefusal(status: String, _ current: View) -> String? {
        guard status == "pending" else { return "the request is \(status), not pending" }
        guard let staged = current.newestKnown else {
            return "no release is staged: put hp.obo and phenotype.hpoa in the HPO data directory (HPO_DATA_DIR)"
        }
        guard current.updateAvailable else { return "the loaded release is the newest known (\(staged.ontologyVersion ?? "unversioned"))" }
        return nil
    }
}

extension UpdateRequestRoutes.View {
    /// The request as the API shows it beside the loaded and the staged release: an update is available when the
    /// staged files' versions differ from the loaded release's, or the loaded release is a minimum one (no annotations).
    /// In an extension, so the memberwise initialiser stays.
    init(_ row: UpdateRequestStore.Row, loaded: OntologyReleaseReference?, staged: StagedRelease?) {
        let available =
            staged.map { staged in
                staged.ontologyVersion != loaded?.ontologyVersion || staged.annotationVersion != loaded?.annotationVersion
                    || loaded?.kind != .full
            } ?? false
        self.init(
            requestId: row.requestID, requestedBy: row.requestedBy, requestedAt: row.requestedAt,
            status: row.importedReleaseID != nil ? "imported" : row.status, decidedBy: row.decidedBy, decidedAt: row.decidedAt,
            updateId: row.updateID, importedReleaseId: row.importedReleaseID, loaded: loaded, newestKnown: staged, updateAvailable: available)
    }
}
