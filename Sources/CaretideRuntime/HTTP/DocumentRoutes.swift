import CaretideSchemas
import Foundation
import Hummingbird

/// `GET /openapi.json` and the request schemas it references, `GET /schemas/api/{name}.schema.json`: open to every
/// caller, like the operational routes, so clients and tools can read the contract before they hold a token.
struct DocumentRoutes: Sendable {
    let document: JSONValue

    func register(on router: Router<CaretideRequestContext>) {
        let body = (try? CaretideJSON.encode(document)) ?? []
        router.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("schemas/api/:file") { _, context in
            // Only the files the catalog loaded: a name is looked up, never joined into a path as given.
            let file = context.parameters.get("file") ?? ""
            guard file.hasSuffix(".schema.json"), SchemaCatalog.bundled.requests[String(file.dropLast(".schema.json".count))] != nil,
                let data = FileManager.default.contents(atPath: SchemaCatalog.bundledDirectory.appendingPathComponent("api/\(file)").path)
            else { throw HTTPProblem(status: .notFound, error: "no such schema") }
            return Response(
                status: .ok, headers: [.contentType: "application/schema+json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}
