import CaretideIdentity
import CaretideRuntime
import CaretideTestSupport
import DiagnosisService
import Foundation
import HTTPTypes
import IngestService
import NotificationService
import ScoringService
import Testing

/// Each service's `/openapi.json` against its router: every registered route is in the document, and every
/// operation the document names answers on the real server (a route that does not exist answers 404).
@Suite(.serialized, .stoppingStacks) struct OpenAPITests {
    @Test("every registered route is documented, every documented operation exists, every referenced schema is served")
    func documentMatchesTheRouter() async throws {
        let stack = try await TestStack.start(IdentityTests.services)
        for service in stack.serviceNames {
            let base = stack.baseURL(service)
            let reply = try await HTTP.get(base + "/openapi.json", as: .anonymous)
            #expect(reply.status == 200)
            // The event catalogue beside it, with the event schemas it references, open like the document.
            let catalogue = try await HTTP.get(base + "/asyncapi.yaml", as: .anonymous)
            #expect(catalogue.status == 200 && catalogue.text.hasPrefix("# Caretide's event catalogue") && catalogue.text.contains("asyncapi: 3.0.0"))
            #expect(try await HTTP.get(base + "/schemas/asyncapi.yaml", as: .anonymous).text == catalogue.text)
            #expect(try await HTTP.get(base + "/schemas/events/alert.raised.v1.schema.json", as: .anonymous).status == 200)
            #expect(try await HTTP.get(base + "/schemas/envelope.v1.schema.json", as: .anonymous).status == 200)
            #expect(try await HTTP.get(base + "/schemas/events/..%2Fapi%2Fnpi.request.schema.json", as: .anonymous).status == 404)
            let document = try #require(try reply.json() as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let schemes = (document["components"] as? [String: Any])?["securitySchemes"] as? [String: Any]
            #expect((schemes?["bearer"] as? [String: Any])?["scheme"] as? String == "bearer")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var documented: Set<String> = []
            for (path, operations) in paths {
                for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
            }

            // Registered → documented.
            let registered = Set(stack.routes(service).map { "\($0.method.rawValue) \(Self.openAPIPath($0.path))" })
            let open = Set(["/healthz", "/readyz", "/metrics", "/openapi.json"].map { "GET \($0)" })
            #expect(registered.subtracting(documented).isEmpty, "\(service) routes missing from the document: \(registered.subtracting(documented))")

            // Documented → answered by the real router: an API operation asks for a token (401), an open one answers.
            for operation in documented.sorted() {
                let (method, path) = (String(operation.split(separator: " ")[0]), String(operation.split(separator: " ")[1]))
                let url = base + Self.filled(path)
                let answer = try await HTTP.send(method: method, url, body: ["POST", "PUT"].contains(method) ? Data("{}".utf8) : nil, as: .anonymous)
                let details = try #require(paths[path]?[method.lowercased()] as? [String: Any])
                if open.contains(operation) {
                    #expect([200, 503].contains(answer.status), "\(service) \(operation): \(answer.status)")
                } else if (details["security"] as? [Any])?.isEmpty == true {
                    // An outside share's page: opened without a token, the share's code checked by the route.
                    #expect(answer.status != 401 && answer.status < 500, "\(service) \(operation) asks no token but answered \(answer.status)")
                } else {
                    #expect(answer.status == 401, "\(service) \(operation) documented but answered \(answer.status)")
                }
                #expect(!(details["summary"] as? String ?? "").isEmpty, "\(operation) has no summary")
                if !open.contains(operation) {
                    #expect(!(details["x-caretide-access"] as? [String] ?? []).isEmpty, "\(operation) says nobody may call it")
                }
                // Request bodies reference Schemas/api/ files, served beside the document.
                let content = ((details["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                let schema = content?["schema"] as? [String: Any]
                let references = ((schema?["oneOf"] as? [[String: Any]]) ?? (schema.map { [$0] } ?? [])).compactMap { $0["$ref"] as? String }
                for reference in references {
                    #expect(reference.hasPrefix("/schemas/api/"), "\(reference)")
                    let file = try await HTTP.get(base + reference, as: .anonymous)
                    #expect(file.status == 200, "\(reference)")
                    #expect((try file.json() as? [String: Any])?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
                }
            }
            // The router does tell a missing route: the check above can fail.
            #expect(try await HTTP.get(base + "/v1/not-a-route", as: .anonymous).status == 404)
            #expect(try await HTTP.get(base + "/schemas/api/..%2F..%2Fetc%2Fpasswd", as: .anonymous).status == 404)
        }
        // Who may call is read off the rules: a consultant reads a patient's assessments with a grant only.
        let scoringPaths = try #require(
            (try await HTTP.get(stack.baseURL(ScoringService.name) + "/openapi.json", as: .anonymous).json() as? [String: Any])?["paths"]
                as? [String: [String: Any]])
        let assessments = try #require(scoringPaths["/v1/patients/{patientId}/assessments"]?["get"] as? [String: Any])
        #expect(
            assessments["x-caretide-access"] as? [String] == [
                "patient: own only", "consultant: while the patient's care-team grant is active", "service with scope patients:read",
            ])
    }

    static func openAPIPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }

    static func filled(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix("{") else { return String(segment) }
            return switch segment {
            case "{kind}": "blood-pressure"
            case "{releaseId}": "1"
            case "{measurementId}", "{npiId}", "{profileId}", "{queryId}": "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"
            default: "x-1"
            }
        }.joined(separator: "/")
    }
}
