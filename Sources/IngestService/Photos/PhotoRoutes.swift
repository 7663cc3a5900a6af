import CaretideIdentity
import CaretideImaging
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Crypto
import Foundation
import Hummingbird

/// Skin photos, a timeline per body site (docs/operations.md "Skin photos"):
/// - `PUT /v1/patients/{patientId}/photos/{photoId}?bodySite=&side=&takenAt=`: the photo's bytes (JPEG, PNG or HEIF,
///   judged by their content), checked before anything is stored; the same upload again is a duplicate
/// - `GET /v1/patients/{patientId}/photos[?bodySite=&side=]`: the photos by site and side, each oldest first
/// - `GET /v1/patients/{patientId}/photos/{photoId}`, `…/thumbnail`: the photo as stored, its thumbnail
/// - `DELETE /v1/patients/{patientId}/photos/{photoId}`: the photo and its bytes are deleted
/// The patient, or a consultant whose grant is in force for the reads; every request audited. The bytes go to the
/// database and back to the caller, never to a log or a topic.
struct PhotoRoutes: Sendable {
    let context: ServiceContext
    let checker: PhotoChecker

    /// A photo stored or found again.
    struct Receipt: Encodable, Sendable {
        /// created or duplicate.
        let status: String
        let photo: PhotoStore.Photo
    }

    func register(on routes: APIRoutes) {
        let base = "v1/patients/:patientId/photos"
        let describing = [
            QueryParameter("bodySite", "where the photo was taken: " + BodySite.allCases.map(\.rawValue).joined(separator: ", "), required: true),
            QueryParameter("side", "left or right (the patient's own) for a paired site; absent for one on the midline"),
            QueryParameter("takenAt", "when the photo was taken (RFC 3339), not in the future", required: true),
        ]
        routes.put(
            "\(base)/:photoId", access: .patientData(.write),
            summary:
                "Store a skin photo (JPEG, PNG or HEIF, judged by its content): checked for format, size, pixels and sharpness, stored without identifying metadata",
            query: describing, bytesUpTo: PhotoSettings.largestStoredBytes
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("photoId", label: "photo id")
            let (site, side, takenAt) = try Self.description(request.uri.queryParameters, now: Date())
            let bytes = Array(try await request.body.collect(upTo: requestContext.maxUploadSize).readableBytesView)
            let inspected: PhotoInspection.Inspected
            switch await checker.inspect(bytes) {
            case .success(let photo): inspected = photo
            case .failure(let refusal):
                throw HTTPProblem(
                    status: .unprocessableContent, error: "the photo is refused (\(refusal.code))",
                    violations: [SchemaViolation(pointer: .root, message: refusal.message)])
            }
            let digest = Array(SHA256.hash(data: bytes))
            let stored = try await context.transaction(auditing: requestContext.origin, status: Self.status) { handler in
                try await PhotoStore(handler).insert(
                    id: id, patientID: patientID, site: site, side: side, takenAt: takenAt, inspected: inspected, sentDigest: digest)
            }
            switch stored {
            case .created(let photo): return try jsonResponse(Receipt(status: "created", photo: photo), status: .created)
            case .duplicate(let photo): return try jsonResponse(Receipt(status: "duplicate", photo: photo))
            case .idTaken: throw RecordRoutes.idTaken
            }
        }
        routes.get(
            base, access: .patientData(.read),
            summary: "The patient's skin photos grouped by body site and side, each group oldest first (to compare one site over time)",
            query: [describing[0], describing[1]].map { QueryParameter($0.name, $0.description + "; narrows the list to that site") }, paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let (site, side) = try Self.site(request.uri.queryParameters, required: false)
            return try jsonResponse(
                try await PhotoStore.timeline(
                    patientID: patientID, site: site, side: side, page: .from(request), on: context.database.client, logger: context.logger))
        }
        for (suffix, thumbnail, summary) in [
            ("", false, "The photo as stored (its identifying metadata removed; a HEIF photo as JPEG)"),
            ("/thumbnail", true, "The photo's thumbnail: a JPEG at most 256 pixels on its longer side"),
        ] {
            routes.get("\(base)/:photoId\(suffix)", access: .patientData(.read), summary: summary, mediaType: "image/jpeg") { _, requestContext in
                let patientID = try PatientID.fromPath(requestContext)
                let id = try requestContext.uuidParameter("photoId", label: "photo id")
                guard
                    let (bytes, mediaType) = try await PhotoStore.file(
                        id, patientID: patientID, thumbnail: thumbnail, on: context.database.client, logger: context.logger)
                else { throw HTTPProblem(status: .notFound, error: "no such photo") }
                return DocumentResponse.make(bytes, contentType: mediaType)
            }
        }
        routes.delete("\(base)/:photoId", access: .patientData(.write), summary: "Delete a skin photo and its bytes") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("photoId", label: "photo id")
            let deleted = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
                try await PhotoStore(handler).delete(id, patientID: patientID)
            }
            guard deleted else { throw HTTPProblem(status: .notFound, error: "no such photo") }
            return Response(status: .noContent)
        }
    }

    static func status(_ stored: PhotoStore.Stored) -> Int {
        switch stored {
        case .created: 201
        case .duplicate: 200
        case .idTaken: 409
        }
    }

    /// The photo's site, side and time from the query, or a 400 naming each parameter that is missing or wrong.
    static func description(_ query: Parameters, now: Date) throws -> (BodySite, BodySide?, Date) {
        var violations: [SchemaViolation] = []
        let site: (BodySite?, BodySide?)
        do {
            site = try Self.site(query, required: true)
        } catch let problem as HTTPProblem {
            violations += problem.violations
            site = (nil, nil)
        }
        let takenAt = query.get("takenAt").flatMap(Timestamp.parse)
        if takenAt == nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["takenAt"]), message: "is required: an RFC 3339 time, e.g. 2026-11-24T09:30:00Z"))
        } else if let takenAt, takenAt > now.addingTimeInterval(RecordRoutes.clockSkew) {
            violations.append(.init(pointer: JSONPointer(tokens: ["takenAt"]), message: RecordRoutes.futureMessage))
        }
        guard violations.isEmpty, let bodySite = site.0, let takenAt else {
            throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations)
        }
        return (bodySite, site.1, takenAt)
    }

    /// The body site and side of the query: a side is required for a paired site and refused for a midline one.
    static func site(_ query: Parameters, required: Bool) throws -> (BodySite?, BodySide?) {
        var violations: [SchemaViolation] = []
        let siteText = query.get("bodySite")
        let sideText = query.get("side")
        let site = siteText.flatMap(BodySite.init(rawValue:))
        let side = sideText.flatMap(BodySide.init(rawValue:))
        if site == nil, siteText != nil || required {
            violations.append(
                .init(
                    pointer: JSONPointer(tokens: ["bodySite"]),
                    message: "must be one of: " + BodySite.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        if sideText != nil, side == nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["side"]), message: "must be left or right"))
        } else if let site, required, site.isPaired, side == nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["side"]), message: "is required for \(site.rawValue): left or right"))
        } else if let site, !site.isPaired, side != nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["side"]), message: "must be absent: \(site.rawValue) is on the midline"))
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return (site, side)
    }
}
