public import CaretideIdentity
public import CaretideSchemas
import CaretideStore
import Foundation
public import HTTPTypes
public import Hummingbird
import Logging
import Synchronization

/// One API operation as registered: what the OpenAPI document, the access table and the access-matrix test are
/// generated from.
public struct RouteDescription: Sendable, Hashable {
    public let method: HTTPRequest.Method
    /// Hummingbird's pattern, e.g. `/v1/patients/:patientId/assessments`.
    public let path: String
    public let access: Access
    /// The largest body the route accepts, in bytes (`APIRoutes.noBody` for routes that read none).
    public let bodyLimit: Int
    /// What the OpenAPI document says about it.
    public let documentation: RouteDocumentation

    /// A write of a patient's data, an export's request included: refused (410) once the patient's data was erased.
    /// Asking for the erasure again is answered whatever was erased.
    var refusesErasedPatient: Bool {
        guard method != .get, method != .head, case .patientData(let operation) = access else { return false }
        return operation != .erase
    }
}

/// A query parameter of a route, for its OpenAPI operation.
public struct QueryParameter: Sendable, Hashable {
    public let name: String
    public let description: String
    public let required: Bool

    public init(_ name: String, _ description: String, required: Bool = false) {
        self.name = name
        self.description = description
        self.required = required
    }
}

/// A field of a browser's form a route reads.
public struct FormField: Sendable, Hashable {
    public let name: String
    public let description: String
    /// The longest value read; a longer one is refused.
    public static let maximumLength = 200

    public init(_ name: String, _ description: String) {
        self.name = name
        self.description = description
    }
}

/// A route's description for its OpenAPI operation.
public struct RouteDocumentation: Sendable, Hashable {
    public let summary: String
    /// The request schemas under `Schemas/api/` the body must match one of (e.g. `blood-pressure.request`).
    public let bodySchemas: [RequestSchema]
    /// Query parameters other than pagination.
    public let query: [QueryParameter]
    /// Whether the route answers pages (`?limit=&cursor=`).
    public let paged: Bool
    /// The media type the route reads and answers in, when not JSON (an HL7 standard's own: FHIR, v2 ER7).
    public let mediaType: String
    /// Whether the body is bytes of a type the route judges by their content (a photo), answered in JSON.
    public let readsBytes: Bool
    /// The fields of a browser's form the route reads (`application/x-www-form-urlencoded`), if it reads one.
    public let form: [FormField]?
    public static let json = "application/json"
    var speaksJSON: Bool { mediaType == Self.json }

    public init(
        summary: String, bodySchemas: [RequestSchema] = [], query: [QueryParameter] = [], paged: Bool = false, mediaType: String = json,
        readsBytes: Bool = false, form: [FormField]? = nil
    ) {
        self.readsBytes = readsBytes
        self.form = form
        self.summary = summary
        self.bodySchemas = bodySchemas
        self.query = query
        self.paged = paged
        self.mediaType = mediaType
    }
}

/// The API routes a service registered, in order.
public final class RouteTable: Sendable {
    private let storage = Mutex<[RouteDescription]>([])
    public init() {}
    func append(_ route: RouteDescription) { storage.withLock { $0.append(route) } }
    public var routes: [RouteDescription] { storage.withLock { $0 } }
}

/// Registers a service's API routes behind authentication. Every route declares what it touches (`Access`) and the
/// largest body it accepts; before the handler runs, the owner named in the path is checked for form (400), the
/// rules are applied (403, which says nothing about whether a record exists), a consultant's grant is looked up, and
/// the body limit is set, a declared `Content-Length` beyond it answered with 413 before a byte is read.
public struct APIRoutes {
    let group: RouterGroup<CaretideRequestContext>
    /// Where the routes an outside viewer opens without a token go (`Access.outsideViewer`): outside authentication.
    let publicGroup: RouterGroup<CaretideRequestContext>?
    public let table: RouteTable
    let access: AccessGuard
    let idempotency: IdempotencyKeys

    /// A body limit for routes that take one JSON record (a reading, a saved query).
    public static let recordBodyLimit = 256 * 1024
    /// Routes that read no body still take a small one (`{}` from a client that always sends JSON) and ignore it.
    public static let noBody = 1024

    public typealias Handler = @Sendable (Request, CaretideRequestContext) async throws -> Response

    /// - Parameters:
    ///   - summary: what the operation does, for the OpenAPI document.
    ///   - query: query parameters other than pagination, with what each does.
    ///   - paged: whether it answers pages (`?limit=&cursor=`).
    ///   - mediaType: what it answers, when not JSON (a report's HTML or PDF).
    public func get(
        _ path: String, access: Access, summary: String, query: [QueryParameter] = [], paged: Bool = false,
        mediaType: String = RouteDocumentation.json, _ handler: @escaping Handler
    ) {
        on(
            .get, path, access: access, bodyLimit: Self.noBody,
            RouteDocumentation(summary: summary, query: query, paged: paged, mediaType: mediaType), handler)
    }

    public func delete(_ path: String, access: Access, summary: String, _ handler: @escaping Handler) {
        on(.delete, path, access: access, bodyLimit: Self.noBody, RouteDocumentation(summary: summary), handler)
    }

    /// - Parameters:
    ///   - body: the request schemas under `Schemas/api/` the body is validated against; none for a route that reads
    ///     no body (then give `bodyLimit: APIRoutes.noBody`) or reads another format than JSON.
    ///   - mediaType: what the route answers, when not JSON; and what it reads, when it has no JSON schema (an HL7
    ///     standard's own form).
    public func post(
        _ path: String, access: Access, summary: String, body: [RequestSchema], bodyLimit: Int = recordBodyLimit,
        mediaType: String = RouteDocumentation.json,
        _ handler: @escaping Handler
    ) {
        on(.post, path, access: access, bodyLimit: bodyLimit, RouteDocumentation(summary: summary, bodySchemas: body, mediaType: mediaType), handler)
    }

    public func put(
        _ path: String, access: Access, summary: String, body: [RequestSchema], bodyLimit: Int = recordBodyLimit, _ handler: @escaping Handler
    ) {
        on(.put, path, access: access, bodyLimit: bodyLimit, RouteDocumentation(summary: summary, bodySchemas: body), handler)
    }

    /// A PUT whose body is bytes the handler judges by their content, whatever `Content-Type` says (a photo), with
    /// what describes them in the query; it answers JSON.
    public func put(_ path: String, access: Access, summary: String, query: [QueryParameter], bytesUpTo bodyLimit: Int, _ handler: @escaping Handler)
    {
        on(.put, path, access: access, bodyLimit: bodyLimit, RouteDocumentation(summary: summary, query: query, readsBytes: true), handler)
    }

    /// A POST of a browser's form (`application/x-www-form-urlencoded`), answered in `mediaType`.
    public func post(
        _ path: String, access: Access, summary: String, form: [FormField], mediaType: String, _ handler: @escaping Handler
    ) {
        on(.post, path, access: access, bodyLimit: Self.noBody * 4, RouteDocumentation(summary: summary, mediaType: mediaType, form: form), handler)
    }

    func on(
        _ method: HTTPRequest.Method, _ path: String, access declared: Access, bodyLimit: Int, _ documentation: RouteDocumentation,
        _ handler: @escaping Handler
    ) {
        let route = RouteDescription(method: method, path: "/" + path, access: declared, bodyLimit: bodyLimit, documentation: documentation)
        table.append(route)
        let (guarded, idempotency) = (self.access, self.idempotency)
        let target = declared == .outsideViewer ? (publicGroup ?? group) : group
        target.on(RouterPath(path), method: method) { request, context in
            var context = context
            context.maxUploadSize = bodyLimit
            if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit {
                throw HTTPProblem(status: .contentTooLarge, error: "the body is larger than this operation accepts (\(bodyLimit) bytes)")
            }
            try Self.refuseNUL(in: request)
            let owner = try declared.ownerParameter.map { try PatientID.fromPath(context, parameter: $0, label: Self.label($0)) }
            return try await guarded.run(route, context: context, owner: owner) { context in
                // PUT and DELETE are idempotent by themselves; a POST is when the caller names it with a key.
                guard method == .post, let key = request.headers[.idempotencyKey] else { return try await handler(request, context) }
                return try await idempotency.run(key: key, request: request, context: context, handler)
            }
        }
    }

    /// PostgreSQL's text cannot hold U+0000, so a query or path that decodes to one would fail its statement (a
    /// 500); it is refused here instead, naming each parameter, before any route reads it. (A JSON body's is refused
    /// by its schema's validation, `JSONSchema`.)
    static func refuseNUL(in request: Request) throws(HTTPProblem) {
        let uri = request.uri
        // Decoding the path and the query is most of this check's cost, and only a `%00` (or a raw NUL, which the
        // HTTP parser does not let through anyway) decodes to U+0000: one pass over the bytes clears every other request.
        guard Self.mayHoldNUL(uri.string.utf8) else { return }
        var violations: [SchemaViolation] = []
        if uri.path.removingPercentEncoding?.contains("\0") ?? false {
            violations.append(SchemaViolation(pointer: .root, message: "the path contains U+0000 (%00), which cannot be stored"))
        }
        for (name, value) in uri.queryParameters where name.contains("\0") || value.contains("\0") {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: [String(name)]), message: "contains U+0000 (%00), which cannot be stored"))
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
    }

    /// Whether a request target holds `%00` or a NUL byte.
    static func mayHoldNUL(_ target: String.UTF8View) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in target {
            if byte == 0 || (byte == UInt8(ascii: "0") && previous == (UInt8(ascii: "%"), UInt8(ascii: "0"))) { return true }
            previous = (previous.1, byte)
        }
        return false
    }

    static func label(_ parameter: String) -> String {
        switch parameter {
        case "patientId": "patient id"
        case "institutionId": "institution id"
        case "doctorId": "doctor id"
        default: parameter
        }
    }
}

/// Applies `AccessRules` to a caller, looking up a consultant's care-team grant when the rules ask for one, and
/// records in the audit trail every access to patient data and every refusal before answering.
struct AccessGuard: Sendable {
    let enabled: Bool
    let grants: any CareTeamGrants
    let audit: AuditTrail
    /// Where a write for a patient whose data was erased is refused (410) before its handler runs; nil where the
    /// service's own transactions refuse it (`ServiceDefinition.erasedPatientWrites`).
    let erasedPatients: Database?
    let logger: Logger

    func run(
        _ route: RouteDescription, context: CaretideRequestContext, owner: String?, _ handler: (CaretideRequestContext) async throws -> Response
    ) async throws -> Response {
        // No identity to check: the route checks the share's code and records the opening itself.
        guard enabled, route.access != .outsideViewer else { return try await handler(context) }
        // The authentication middleware ran before: no identity here means a route outside it, which is a bug.
        guard let identity = context.identity else { throw Forbidden() }
        // The route names a patient, or else an institution or doctor.
        let isPatient =
            switch route.access {
            case .patientData, .photoFiles: true
            default: false
            }
        let base = AuditEntry(
            identity: identity, access: route.access, method: route.method, route: route.path, patientID: isPatient ? owner : nil,
            owner: isPatient ? nil : owner, outcome: .allowed, status: 0, requestID: context.requestID)
        func entry(_ outcome: AuditOutcome, _ status: Int) -> AuditEntry { base.with(outcome, status: status) }
        guard try await isAllowed(identity, route.access, owner: owner) else {
            do {
                try await audit.record(entry(.refused, 403))
            } catch {
                logger.error("a refusal could not be audited", metadata: [LogKey.requestID: "\(context.requestID)", LogKey.route: "\(route.path)"])
            }
            throw Forbidden()
        }
        guard route.access.isPatientData else { return try await handler(context) }
        if let erasedPatients, let owner, route.refusesErasedPatient,
            try await ErasedPatients.contains(owner, database: erasedPatients, logger: logger)
        {
            try? await audit.record(entry(.allowed, 410))
            throw HTTPProblem.patientErased
        }
        var audited = context
        let requestAudit = RequestAudit(entry: base)
        audited.audit = requestAudit
        let response: Response
        do {
            response = try await handler(audited)
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            if !requestAudit.isRecorded { try? await audit.record(entry(.allowed, status)) }
            throw error
        }
        // A write that recorded its entry in its own transaction is done.
        if requestAudit.isRecorded { return response }
        do {
            try await audit.record(entry(.allowed, response.status.code))
        } catch  where route.method == .get {
            // Patient data leaves only with its audit record.
            throw HTTPProblem(status: .serviceUnavailable, error: "the access could not be recorded; send the request again")
        } catch {
            // The write is committed and its event published; the event itself records it.
            logger.error("a write could not be audited", metadata: [LogKey.requestID: "\(context.requestID)", LogKey.route: "\(route.path)"])
        }
        return response
    }

    private func isAllowed(_ identity: Identity, _ access: Access, owner: String?) async throws -> Bool {
        switch AccessRules.decide(identity, access, owner: owner) {
        case .allowed: true
        case .refused: false
        case .allowedWithActiveGrant:
            if let owner { try await grants.isActive(patientID: owner, consultantID: identity.subject) } else { false }
        }
    }
}

/// Whether a patient's care-team grant to a consultant is active now.
public protocol CareTeamGrants: Sendable {
    func isActive(patientID: String, consultantID: String) async throws -> Bool
}

/// A 403 that names no resource: the same answer whether or not the record exists.
struct Forbidden: HTTPResponseError {
    var status: HTTPResponse.Status { .forbidden }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try HTTPProblem(status: .forbidden, error: "the caller may not do this").response(from: request, context: context)
    }
}

extension HTTPProblem {
    /// The answer to a write for a patient whose data was erased.
    public static let patientErased = HTTPProblem(
        status: .gone, error: "this patient's data was erased at their request; the id takes no new data")
}
