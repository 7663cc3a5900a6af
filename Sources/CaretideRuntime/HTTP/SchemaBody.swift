public import CaretideSchemas
public import Hummingbird

/// A request body as a route reads it: a `Decodable` that names the schema its JSON must pass first. Routes read
/// one with Hummingbird's `request.decode(as:context:)`, which goes through `CaretideRequestDecoder`: the body is
/// parsed once, checked against the schema (a 400 naming every failing field) and decoded from the parsed value, so
/// no route reads a field by its name in a string.
public protocol SchemaBody: Decodable, Sendable {
    static var schema: RequestSchema { get }
}

/// The request decoder of every Caretide route (`CaretideRequestContext.requestDecoder`): `Request.validatedJSON`
/// for the body's own schema, then `JSONValueDecoder`. A type that names no schema is refused: every body a client
/// sends is bounded by one.
public struct CaretideRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard let bodyType = type as? any SchemaBody.Type else {
            throw HTTPProblem(status: .internalServerError, error: "this route reads a body that names no schema")
        }
        let document = try await request.validatedJSON(schema: bodyType.schema, context: context)
        do {
            return try JSONValueDecoder.decode(type, from: document)
        } catch let error as DecodingError {
            throw HTTPProblem.invalidBody([error.violation])
        }
    }
}
