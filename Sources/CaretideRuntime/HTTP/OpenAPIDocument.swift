import CaretideIdentity
import CaretideSchemas
import Foundation
import HTTPTypes

/// The service's OpenAPI 3.1 document, generated from the routes as registered, so it cannot drift from them:
/// every operation with its parameters, the request schemas under `Schemas/api/` by reference (served beside it at
/// `/schemas/api/…`, never copied), the bearer security scheme, and who may call it according to `AccessRules`.
enum OpenAPIDocument {
    static func build(service: String, routes: [RouteDescription]) -> JSONValue {
        var paths: [String: [String: JSONValue]] = [:]
        for route in routes {
            paths[openAPIPath(route.path), default: [:]][route.method.rawValue.lowercased()] = operation(route)
        }
        for (path, summary) in operationalRoutes {
            paths[path, default: [:]]["get"] = .object([
                "summary": .string(summary), "operationId": .string(operationID("GET", path)), "security": .array([]),
                "tags": .array([.string("operations")]),
                "responses": .object(["200": .object(["description": .string("ok")]), "503": .object(["description": .string("not ready")])]),
            ])
        }
        return .object([
            "openapi": .string("3.1.0"),
            "info": .object([
                "title": .string(service), "version": .string("1"),
                "description": .string("Every /v1 operation needs a bearer JWT from the identity provider; x-caretide-access says who may call it."),
            ]),
            "security": .array([.object(["bearer": .array([])])]),
            "components": .object([
                "securitySchemes": .object([
                    "bearer": .object(["type": .string("http"), "scheme": .string("bearer"), "bearerFormat": .string("JWT")])
                ]),
                "schemas": .object(["Problem": problemSchema]),
            ]),
            "paths": .object(paths.mapValues { .object($0) }),
        ])
    }

    static let operationalRoutes = [
        "/healthz": "The process answers", "/readyz": "Ready to serve: database, broker, migrations, keys, consumer, no stuck worker",
        "/metrics": "Prometheus text exposition", "/openapi.json": "This document",
    ]

    /// `/v1/patients/:patientId/…` → `/v1/patients/{patientId}/…`.
    static func openAPIPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }

    static func operationID(_ method: String, _ path: String) -> String {
        method.lowercased()
            + path.split(separator: "/").map { part in
                let word = part.trimmingCharacters(in: CharacterSet(charactersIn: ":{}")).replacingOccurrences(of: "-", with: " ")
                return word.capitalized.replacingOccurrences(of: " ", with: "")
            }.joined()
    }

    static func operation(_ route: RouteDescription) -> JSONValue {
        var parameters: [JSONValue] = route.path.split(separator: "/").filter { $0.hasPrefix(":") }.map { segment in
            let name = String(segment.dropFirst())
            return .object(["name": .string(name), "in": .string("path"), "required": .bool(true), "schema": pathParameterSchema(name)])
        }
        for query in route.documentation.query {
            parameters.append(
                .object([
                    "name": .string(query.name), "in": .string("query"), "required": .bool(query.required), "description": .string(query.description),
                    "schema": .object(["type": .string("string")]),
                ]))
        }
        if route.method == .post {
            parameters.append(
                .object([
                    "name": .string("Idempotency-Key"), "in": .string("header"), "required": .bool(false),
                    "description": .string(
                        "Send a retry with the same key to get the first answer back (Idempotent-Replayed: true), with nothing stored twice; kept a day"
                    ),
                    "schema": .object([
                        "type": .string("string"), "minLength": .number(1), "maxLength": .number(Double(IdempotencyKeys.maximumKeyLength)),
                    ]),
                ]))
        }
        if route.documentation.paged {
            parameters.append(
                .object([
                    "name": .string("limit"), "in": .string("query"), "required": .bool(false),
                    "schema": .object(["type": .string("integer"), "minimum": .number(1), "maximum": .number(Double(PageRequest.maximumLimit))]),
                ]))
            parameters.append(
                .object([
                    "name": .string("cursor"), "in": .string("query"), "required": .bool(false),
                    "description": .string("nextCursor of the previous page"),
                    "schema": .object(["type": .string("string")]),
                ]))
        }
        var operation: [String: JSONValue] = [
            "operationId": .string(operationID(route.method.rawValue, route.path)),
            "summary": .string(route.documentation.summary),
            "tags": .array([.string(tag(route.access))]),
            "x-caretide-access": .array(AccessRules.describe(route.access).map(JSONValue.string)),
            "parameters": .array(parameters),
            "responses": .object(responses(route)),
        ]
        // Opened without a token: the share's access code, in the form, is what is checked.
        if route.access == .outsideViewer { operation["security"] = .array([]) }
        let schemas = route.documentation.bodySchemas.map { JSONValue.object(["$ref": .string("/schemas/\($0.path)")]) }
        if route.method == .get {
            // A read has no body, whatever it answers.
        } else if !schemas.isEmpty {
            // JSON in, whatever comes out (a ranking's CSV, page or PDF answers a JSON query).
            operation["requestBody"] = .object([
                "required": .bool(true),
                "content": .object(["application/json": .object(["schema": schemas.count == 1 ? schemas[0] : .object(["oneOf": .array(schemas)])])]),
            ])
        } else if let form = route.documentation.form {
            // A browser's form: every field a string.
            operation["requestBody"] = .object([
                "required": .bool(true),
                "content": .object([
                    "application/x-www-form-urlencoded": .object([
                        "schema": .object([
                            "type": .string("object"),
                            "properties": .object(
                                Dictionary(
                                    uniqueKeysWithValues: form.map {
                                        (
                                            $0.name,
                                            JSONValue.object(["type": .string("string"), "maxLength": .number(Double(FormField.maximumLength))])
                                        )
                                    })),
                        ])
                    ])
                ]),
            ])
        } else if route.documentation.readsBytes {
            // Bytes judged by their content (a photo's own signature), whatever type the client names.
            operation["requestBody"] = .object([
                "required": .bool(true),
                "content": .object([
                    "application/octet-stream": .object(["schema": .object(["type": .string("string"), "format": .string("binary")])])
                ]),
            ])
        } else if !route.documentation.speaksJSON {
            // Checked by the standard's own rules, not a JSON Schema of ours.
            operation["requestBody"] = .object([
                "required": .bool(true), "content": .object([route.documentation.mediaType: .object(["schema": .object([:])])]),
            ])
        }
        return .object(operation)
    }

    static func responses(_ route: RouteDescription) -> [String: JSONValue] {
        let mediaType = route.documentation.mediaType
        func problem(_ description: String) -> JSONValue {
            var content: [String: JSONValue] = ["application/json": .object(["schema": .object(["$ref": .string("#/components/schemas/Problem")])])]
            // A route speaking an HL7 standard refuses what it has read in that standard's form (a FHIR
            // OperationOutcome); what is refused before (the token, the access rules) stays a problem document.
            if !route.documentation.speaksJSON { content[mediaType] = .object(["schema": .object([:])]) }
            return .object(["description": .string(description), "content": .object(content)])
        }
        var responses: [String: JSONValue] = [
            "2XX": .object(["description": .string("done"), "content": .object([mediaType: .object(["schema": .object([:])])])]),
            "400": problem("a malformed path parameter, query or body, every failing field named by JSON Pointer"),
            "401": problem("no valid bearer token; WWW-Authenticate says why (RFC 6750)"),
            "403": problem("the caller may not do this (the same answer whether or not the record exists)"),
            "404": problem("no such record"),
            "503": problem("the database or the identity provider's keys are unavailable; send the request again"),
        ]
        if route.method == .delete {
            // Where there is nothing left to show.
            responses["204"] = .object(["description": .string("done; no body")])
        }
        if route.bodyLimit > APIRoutes.noBody || !route.documentation.bodySchemas.isEmpty {
            responses["413"] = problem("the body, or the event it would become, is larger than this operation accepts")
            responses["409"] = problem("the id is used by another record, or the record was deleted")
            responses["422"] = problem("values the clinical rules cannot assess, or a time in the future")
        }
        if route.refusesErasedPatient {
            responses["410"] = problem("the patient's data was erased at their request: the id takes no new data")
        }
        // Redeeming an activation code: a patient's failed attempts are limited.
        if route.method == .post, route.path == "/v1/patients/:patientId/institution-links" {
            responses["429"] = problem("too many failed attempts lately; Retry-After says when to try again")
        }
        // An export's files: its status answers what it is instead.
        if route.access == .patientData(.export), route.method == .get, route.path.hasPrefix("/v1/patients/:patientId/exports/:exportId/") {
            responses["409"] = problem("the export is still being assembled, or failed")
            responses["410"] = problem("the export expired; ask for a new one")
        }
        return responses
    }

    static func pathParameterSchema(_ name: String) -> JSONValue {
        switch name {
        case "patientId", "institutionId", "institutionPatientId", "doctorId", "consultantId", "examId":
            .object(["type": .string("string"), "pattern": .string("^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")])
        case "measurementId", "npiId", "profileId", "queryId", "notificationId", "reminderId", "broadcastId":
            .object(["type": .string("string"), "format": .string("uuid")])
        case "kind":
            .object(["enum": .array(MeasurementKind.allCases.map { .string($0.rawValue) })])
        case "releaseId":
            .object(["type": .string("integer"), "minimum": .number(1)])
        default:
            .object(["type": .string("string"), "minLength": .number(1)])
        }
    }

    static func tag(_ access: Access) -> String {
        switch access {
        case .patientData: "patient data"
        case .institutionResults: "institutions"
        case .consultantWorkspace: "consultants"
        case .clinicalTools: "clinical tools"
        case .referenceData: "reference data"
        case .calculators: "calculators"
        case .operatorFeeds: "operator feeds"
        case .ownInbox: "inboxes"
        case .broadcasts: "broadcasts"
        case .deliveryChannels: "webhooks"
        case .ontologyUpdates: "ontology updates"
        case .photoFiles: "photo files"
        case .outsideViewer: "outside shares"
        }
    }

    static let problemSchema: JSONValue = .object([
        "type": .string("object"), "required": .array([.string("error"), .string("violations")]),
        "properties": .object([
            "error": .object(["type": .string("string")]),
            "violations": .object([
                "type": .string("array"),
                "items": .object([
                    "type": .string("object"),
                    "properties": .object(["pointer": .object(["type": .string("string")]), "message": .object(["type": .string("string")])]),
                ]),
            ]),
        ]),
    ])
}
