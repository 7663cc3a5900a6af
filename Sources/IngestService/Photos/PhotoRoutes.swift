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
/// - `GET /v1/patients/{patientId}/photos/{photoId}/file?expires=&signature=`: the file through the signed link of its
///   `lesion-photo.recorded` event, for a service client with `photos:classify` (an outside classifier)
/// The patient, or a consultant whose grant is in force for the reads; every request audited. The bytes go to the
/// database and back to the caller, never to a log or a topic: each new photo and each deletion is announced on
/// `caretide.photos` with ids, the site and a link.
struct PhotoRoutes: Sendable {
    let context: ServiceContext
    let checker: PhotoChecker
    let links: PhotoLinks

    /// What this deployment checks in a photo before it stores it (`GET /v1/photo-checks`), with the sources of the
    /// thresholds, so an app can tell the patient before the upload.
    struct Checks: Encodable, Sendable {
        let formats = ImageFormat.allCases.map(\.rawValue)
        let maximumBytes: Int
        let maximumPixels: Int
        let minimumSide: Int
        let minimumSharpness: Double
        let maximumScans: Int
        /// The share of skin-coloured pixels below which a photo is refused, and from which it is taken for skin.
        let skinRefusedBelowPercent = SkinPresence.refusedBelow * 100
        let skinFromPercent = SkinPresence.skinFrom * 100
        let sources = [
            "minimumSide":
                "299 pixels, the input size of the classifiers of the melanoma literature (Inception v3, as in Esteva A et al. Nature 2017;542:115-118)",
            "minimumSharpness":
                "the variance of the Laplacian at the working size (Pech-Pacheco JL et al. ICPR 2000); the threshold is measured on sharp and blurred fixtures (docs/operations.md)",
            "maximumScans": "libjpeg-turbo's advice against progressive JPEGs built to be slow to decode",
            "skinRefusedBelowPercent":
                "pixels of a skin colour in CIELAB (some red, hue -45 to 80 degrees, chroma at most 45), measured on fixtures of Fitzpatrick types I-VI and of scenes without skin (BENCHMARKS.md, Skin presence); between the two thresholds a photo is accepted as unsure",
        ]

        init(_ limits: PhotoInspection.Limits) {
            maximumBytes = limits.maximumBytes
            maximumPixels = limits.maximumPixels
            minimumSide = limits.minimumSide
            minimumSharpness = limits.minimumSharpness
            maximumScans = limits.maximumScans
        }
    }

    /// A photo stored or found again.
    struct Receipt: Encodable, Sendable {
        /// created or duplicate.
        let status: String
        let photo: PhotoStore.Photo
        let skinCheck: SkinCheck
    }

    /// What the skin check made of the photo: skin, or unsure (accepted rather than refuse a real lesion).
    struct SkinCheck: Encodable, Sendable {
        let verdict: SkinPresence.Verdict
        /// The share of skin-coloured pixels, in percent to a tenth.
        let skinPercent: Double
        let note: String?

        init(_ measure: SkinPresence.Measure) {
            verdict = measure.verdict
            skinPercent = (measure.skinFraction * 1000).rounded() / 10
            note =
                measure.verdict == .unsure
                ? "little of the photo has a skin colour: it was kept, but check that it shows the mole with the skin around it" : nil
        }
    }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/photo-checks", access: .referenceData,
            summary: "What a skin photo must be to be stored here: formats, size, pixels, sides, sharpness, skin, with the thresholds' sources"
        ) { _, _ in
            try jsonResponse(Checks(checker.inspection.limits))
        }
        let base = "v1/patients/:patientId/photos"
        let describing = [
            QueryParameter("bodySite", "where the photo was taken: " + BodySite.allCases.map(\.rawValue).joined(separator: ", "), required: true),
            QueryParameter("side", "left or right (the patient's own) for a paired site; absent for one on the midline"),
            QueryParameter("takenAt", "when the photo was taken (RFC 3339), not in the future", required: true),
        ]
        routes.put(
            "\(base)/:photoId", access: .patientData(.write),
            summary:
                "Store a skin photo (JPEG, PNG or HEIF, judged by its content): checked for format, size, pixels, sharpness and skin, stored without identifying metadata",
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
            let (links, origin) = (self.links, requestContext.origin)
            let stored = try await context.transaction(auditing: origin, status: Self.status) { handler in
                try await ErasureStore(handler).refuseIfErased(patientID: patientID)
                let stored = try await PhotoStore(handler).insert(
                    id: id, patientID: patientID, site: site, side: side, takenAt: takenAt, inspected: inspected, sentDigest: digest)
                if case .created(let photo) = stored {
                    let link = links.link(patientID: patientID, photoID: id, now: Date())
                    let announcement = LesionPhotoRecorded(
                        photoID: id, bodySite: site, side: side, takenAt: takenAt, mediaType: photo.mediaType, width: photo.width,
                        height: photo.height, imageURL: link.url, linkExpiresAt: link.expiresAt)
                    try await handler.publish(announcement, patientID: patientID, traceID: origin.traceID)
                }
                return stored
            }
            switch stored {
            case .created(let photo):
                return try jsonResponse(Receipt(status: "created", photo: photo, skinCheck: SkinCheck(inspected.skin)), status: .created)
            case .duplicate(let photo): return try jsonResponse(Receipt(status: "duplicate", photo: photo, skinCheck: SkinCheck(inspected.skin)))
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
                try await PhotoStore(context).timeline(
                    patientID: patientID, site: site, side: side, page: .from(request)))
        }
        routes.get(
            "\(base)/:photoId/file", access: .photoFiles,
            summary: "The photo's file through the signed, short-lived link of its lesion-photo.recorded event (an outside classifier)",
            query: [
                QueryParameter("expires", "the link's expiry, in seconds since 1970", required: true),
                QueryParameter("signature", "the link's signature", required: true),
            ], mediaType: "image/jpeg"
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("photoId", label: "photo id")
            let query = request.uri.queryParameters
            guard links.isValid(patientID: patientID, photoID: id, expires: query.get("expires"), signature: query.get("signature"), now: Date())
            // As for a photo that is not there: a wrong or stale link says nothing about whether the photo exists.
            else { throw HTTPProblem(status: .notFound, error: "no such photo, or the link is not valid or has expired") }
            return try await Self.file(id, patientID: patientID, thumbnail: false, context: context)
        }
        for (suffix, thumbnail, summary) in [
            ("", false, "The photo as stored (its identifying metadata removed; a HEIF photo as JPEG)"),
            ("/thumbnail", true, "The photo's thumbnail: a JPEG at most 256 pixels on its longer side"),
        ] {
            routes.get("\(base)/:photoId\(suffix)", access: .patientData(.read), summary: summary, mediaType: "image/jpeg") { _, requestContext in
                let patientID = try PatientID.fromPath(requestContext)
                let id = try requestContext.uuidParameter("photoId", label: "photo id")
                return try await Self.file(id, patientID: patientID, thumbnail: thumbnail, context: context)
            }
        }
        routes.delete("\(base)/:photoId", access: .patientData(.write), summary: "Delete a skin photo and its bytes") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("photoId", label: "photo id")
            let origin = requestContext.origin
            let deleted = try await context.transaction(auditing: origin, status: { $0 ? 204 : 404 }) { handler in
                guard try await PhotoStore(handler).delete(id, patientID: patientID) else { return false }
                let deletion = LesionPhotoDeleted(photoID: id, deletedAt: Date())
                try await handler.publish(deletion, patientID: patientID, traceID: origin.traceID)
                return true
            }
            guard deleted else { throw HTTPProblem(status: .notFound, error: "no such photo") }
            return Response(status: .noContent)
        }
    }

    static func file(_ id: UUID, patientID: String, thumbnail: Bool, context: ServiceContext) async throws -> Response {
        guard
            let (bytes, mediaType) = try await PhotoStore(context).file(
                id, patientID: patientID, thumbnail: thumbnail)
        else { throw HTTPProblem(status: .notFound, error: "no such photo") }
        return DocumentResponse.make(bytes, contentType: mediaType)
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
