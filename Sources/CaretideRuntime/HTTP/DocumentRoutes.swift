import CaretideSchemas
import Foundation
import Hummingbird

/// `GET /openapi.json` and the request schemas it references, `GET /schemas/api/{name}.schema.json`, and the event
/// catalogue `GET /asyncapi.yaml` (AsyncAPI 3.0, also at `/schemas/asyncapi.yaml`) with the schemas it references,
/// `GET /schemas/envelope.v1.schema.json` and `GET /schemas/events/{name}`:
/// open to every caller, like the operational routes, so clients and tools can read the contract before they hold a
/// token.
struct DocumentRoutes: Sendable {
    let document: JSONValue

    func register(on router: Router<CaretideRequestContext>) {
        let body = (try? CaretideJSON.encode(document)) ?? []
        router.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        let catalogue = FileManager.default.contents(atPath: SchemaCatalog.bundledDirectory.appendingPathComponent("asyncapi.yaml").path) ?? Data()
        // At the root, and beside the schemas, where its relative references (./events/…, ./api/…) resolve.
        for path in ["asyncapi.yaml", "schemas/asyncapi.yaml"] {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: "application/yaml"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: catalogue)))
            }
        }
        router.get("schemas/envelope.v1.schema.json") { _, _ in try Self.file("envelope.v1.schema.json") }
        router.get("schemas/events/:file") { _, context in
            // Only the event types the code knows: a name is looked up, never joined into a path as given.
            let file = context.parameters.get("file") ?? ""
            guard EventType.allCases.contains(where: { $0.schemaPath == "events/\(file)" }) else {
                throw HTTPProblem(status: .notFound, error: "no such schema")
            }
            return try Self.file("events/\(file)")
        }
        router.get("schemas/api/:file") { _, context in
            // Only the files the catalog loaded: a name is looked up, never joined into a path as given.
            let file = context.parameters.get("file") ?? ""
            guard let schema = RequestSchema.allCases.first(where: { $0.path == "api/\(file)" }),
                let data = FileManager.default.contents(atPath: SchemaCatalog.bundledDirectory.appendingPathComponent(schema.path).path)
            else { throw HTTPProblem(status: .notFound, error: "no such schema") }
            return Response(
                status: .ok, headers: [.contentType: "application/schema+json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    private static func file(_ relativePath: String) throws -> Response {
        guard let data = FileManager.default.contents(atPath: SchemaCatalog.bundledDirectory.appendingPathComponent(relativePath).path) else {
            throw HTTPProblem(status: .notFound, error: "no such schema")
        }
        return Response(status: .ok, headers: [.contentType: "application/schema+json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
