import CaretideIdentity
import HTTPTypes
import Hummingbird
import Synchronization

/// One API operation as registered: what the OpenAPI document, the access table and the access-matrix test are
/// generated from.
public struct RouteDescription: Sendable, Hashable {
    public let method: HTTPRequest.Method
    /// Hummingbird's pattern, e.g. `/v1/patients/:patientId/assessments`.
    public let path: String
    public let access: Access
    /// The largest body the route accepts, in bytes (0: none).
    public let bodyLimit: Int
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
    public let table: RouteTable
    let access: AccessGuard

    /// A body limit for routes that take one JSON record (a reading, a report of a few hundred items).
    public static let recordBodyLimit = 256 * 1024

    public typealias Handler = @Sendable (Request, CaretideRequestContext) async throws -> Response

    public func get(_ path: String, access: Access, _ handler: @escaping Handler) {
        on(.get, path, access: access, bodyLimit: 0, handler)
    }

    public func delete(_ path: String, access: Access, _ handler: @escaping Handler) {
        on(.delete, path, access: access, bodyLimit: 0, handler)
    }

    public func post(_ path: String, access: Access, bodyLimit: Int = recordBodyLimit, _ handler: @escaping Handler) {
        on(.post, path, access: access, bodyLimit: bodyLimit, handler)
    }

    public func put(_ path: String, access: Access, bodyLimit: Int = recordBodyLimit, _ handler: @escaping Handler) {
        on(.put, path, access: access, bodyLimit: bodyLimit, handler)
    }

    func on(_ method: HTTPRequest.Method, _ path: String, access declared: Access, bodyLimit: Int, _ handler: @escaping Handler) {
        let route = RouteDescription(method: method, path: "/" + path, access: declared, bodyLimit: bodyLimit)
        table.append(route)
        let guarded = self.access
        group.on(RouterPath(path), method: method) { request, context in
            var context = context
            context.maxUploadSize = bodyLimit
            if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit {
                throw HTTPProblem(status: .contentTooLarge, error: "the body is larger than this operation accepts (\(bodyLimit) bytes)")
            }
            let owner = try declared.ownerParameter.map { try PatientID.fromPath(context, parameter: $0, label: Self.label($0)) }
            try await guarded.authorize(context.identity, declared, owner: owner)
            return try await handler(request, context)
        }
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

/// Applies `AccessRules` to a caller, looking up a consultant's care-team grant when the rules ask for one.
struct AccessGuard: Sendable {
    let enabled: Bool
    let grants: any CareTeamGrants

    func authorize(_ identity: Identity?, _ access: Access, owner: String?) async throws {
        guard enabled else { return }
        // The authentication middleware ran before: no identity here means a route outside it, which is a bug.
        guard let identity else { throw Forbidden() }
        switch AccessRules.decide(identity, access, owner: owner) {
        case .allowed: return
        case .refused: throw Forbidden()
        case .allowedWithActiveGrant:
            guard let owner, try await grants.isActive(patientID: owner, consultantID: identity.subject) else { throw Forbidden() }
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

/// Until a service keeps a projection of care-team grants, no consultant holds one.
struct NoCareTeamGrants: CareTeamGrants {
    func isActive(patientID: String, consultantID: String) async throws -> Bool { false }
}
