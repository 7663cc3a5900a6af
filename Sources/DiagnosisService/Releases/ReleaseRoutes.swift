import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Hummingbird

/// The stored ontology releases and their accuracy reports:
/// - `GET /v1/releases`: every kept release, newest first, with which one is serving;
/// - `GET /v1/releases/{releaseId}`: one release with its accuracy report (the recall check of simulated patients);
/// - `GET /v1/releases/{releaseId}/bundle`: the serving release as one archive for an app that ranks offline
///   (`ReleaseBundle`), with its SHA-256 in `Repr-Digest` (RFC 9530) and `ETag`.
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
            let releases = try await ReleaseStore(context).summaries()
            return try jsonResponse(
                Listing(
                    serving: catalog.release?.reference, releases: releases, message: releases.isEmpty ? SearchRoutes.noOntology : nil))
        }

        routes.get("v1/releases/:releaseId", access: .referenceData, summary: "One stored release with its counts and accuracy report") {
            _, requestContext in
            guard let releaseID = requestContext.parameters.get("releaseId").flatMap(Int.init) else {
                throw HTTPProblem.invalidPathParameter("releaseId", label: "release id", requirement: "must be an integer")
            }
            guard let summary = try await ReleaseStore(context).summaries(releaseID: releaseID).first
            else { throw HTTPProblem(status: .notFound, error: "no release has this id (older releases are pruned)") }
            return try jsonResponse(summary)
        }

        // Who may rank may take the means to rank offline.
        routes.get(
            "v1/releases/:releaseId/bundle", access: .clinicalTools,
            summary: "The serving release as one tar archive (terms, annotations, information content, null distributions, manifest, HPO licence)",
            mediaType: "application/x-tar"
        ) { request, requestContext in
            guard let releaseID = requestContext.parameters.get("releaseId").flatMap(Int.init) else {
                throw HTTPProblem.invalidPathParameter("releaseId", label: "release id", requirement: "must be an integer")
            }
            // With nothing loaded no release is offered: the id names nothing to download (not an outage).
            guard let serving = catalog.release else { throw HTTPProblem(status: .notFound, error: SearchRoutes.noOntology) }
            guard serving.reference.releaseID == releaseID else {
                throw HTTPProblem(
                    status: .conflict, error: "only the serving release (\(serving.reference.releaseID)) can be downloaded as a bundle")
            }
            guard let bundle = ReleaseBundle(release: serving) else {
                throw HTTPProblem(status: .conflict, error: "the serving release is a minimum update: it cannot rank, so it has no bundle")
            }
            let digest = try await bundle.knownDigest()
            var headers = HTTPFields()
            let etag = "\"\(digest.sha256Hex)\""
            headers[.eTag] = etag
            headers[.cacheControl] = "private, max-age=86400"
            if request.headers[.ifNoneMatch].map({ $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag } }) == true {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/x-tar"
            headers[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"\(bundle.fileName)\""
            headers[HTTPField.Name("Repr-Digest")!] = "sha-256=:\(Data(digest.sha256).base64EncodedString()):"
            let body = ResponseBody(contentLength: digest.size) { writer in
                // One part in memory at a time, each made off the cooperative pool.
                for part in ReleaseBundle.Part.allCases {
                    let bytes = try await runOffCooperativePool { try bundle.content(of: part) }
                    for chunk in bundle.archived(part.rawValue, bytes) { try await writer.write(ByteBuffer(bytes: chunk)) }
                }
                for chunk in bundle.archived("MANIFEST.json", digest.manifest) + [TarArchive.end] {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: headers, body: body)
        }
    }
}
