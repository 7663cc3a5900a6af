public import CaretideSchemas
import CaretideStore
public import Foundation
public import Hummingbird

/// An HTTP error that writes its own JSON body: `{"error": "...", "violations": [{"pointer": "/systolic", "message": "..."}]}`.
/// Every failing field is named by JSON Pointer; messages never repeat the submitted values.
public struct HTTPProblem: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let error: String
    public let violations: [SchemaViolation]
    /// With a 429 or a 503: when to ask again (`Retry-After`, RFC 9110 §10.2.3).
    public var retryAfterSeconds: Int?

    public init(status: HTTPResponse.Status, error: String, violations: [SchemaViolation] = []) {
        self.status = status
        self.error = error
        self.violations = violations
    }

    public static func invalidBody(_ violations: [SchemaViolation]) -> HTTPProblem {
        HTTPProblem(status: .badRequest, error: "the request body is invalid", violations: violations)
    }

    /// A 400 naming a path parameter that does not have the required form.
    public static func invalidPathParameter(_ parameter: String, label: String, requirement: String) -> HTTPProblem {
        HTTPProblem(
            status: .badRequest, error: "the \(label) in the path is invalid",
            violations: [SchemaViolation(pointer: JSONPointer(tokens: [parameter]), message: requirement)])
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try CaretideJSON.encode(ProblemBody(error: error, violations: violations))
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

struct ProblemBody: Encodable {
    let error: String
    let violations: [SchemaViolation]
}

extension Request {
    /// Reads the body as JSON and validates it against `Schemas/api/<schemaName>.schema.json`. Malformed JSON and
    /// every schema violation become one 400 naming each failing field. A body larger than the largest event the
    /// outbox can publish is refused with 413 as soon as it passes that size, before it is read whole.
    public func validatedJSON(schema: RequestSchema, catalog: SchemaCatalog = .bundled, context: some RequestContext) async throws -> JSONValue {
        let (document, violations) = try await checkedJSON(schema: schema, catalog: catalog, context: context)
        guard violations.isEmpty else { throw HTTPProblem.invalidBody(violations) }
        return document
    }

    /// `validatedJSON` for a route that adds violations of its own to the schema's before answering (one answer names
    /// every failing field): the parsed body and what the schema says of it. Malformed JSON is a 400 at once.
    public func checkedJSON(
        schema: RequestSchema, catalog: SchemaCatalog = .bundled, context: some RequestContext
    ) async throws -> (JSONValue, [SchemaViolation]) {
        let bytes = Array(buffer: try await body.collect(upTo: min(context.maxUploadSize, Outbox.maximumEventBytes)))
        let document: JSONValue
        do {
            document = try CaretideJSON.parse(bytes)
        } catch {
            throw HTTPProblem.invalidBody([error])
        }
        return (document, catalog.validateRequest(schema, document))
    }
}

extension RequestContext {
    /// The path parameter `name` as a UUID, or a 400 naming it.
    public func uuidParameter(_ name: String, label: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw HTTPProblem.invalidPathParameter(name, label: label, requirement: "must be a valid uuid")
        }
        return id
    }
}

extension DecodingError {
    /// The decoding failure as a violation at the JSON Pointer of the failing field.
    public var violation: SchemaViolation {
        let (path, message): ([any CodingKey], String) =
            switch self {
            case .typeMismatch(_, let context): (context.codingPath, "has the wrong type")
            case .valueNotFound(_, let context): (context.codingPath, "is required")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is required")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "cannot be decoded")
            }
        let tokens = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        return SchemaViolation(pointer: JSONPointer(tokens: tokens), message: message)
    }
}

/// Encodes a response body with Caretide's JSON conventions.
public func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try CaretideJSON.encode(value)
    return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}
