import CaretideIdentity
import CaretideKafka
import CaretideRuntime
import CaretideSchemas
import CaretideTestSupport
import DiagnosisService
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// Every route of every service behind a verified token and the access rules, generated from the routes the
/// services registered: a new route is in the matrix without anyone listing it.
@Suite(.serialized, .stoppingStacks) struct IdentityTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition, DiagnosisService.definition]

    /// Path parameters filled in: the owner's id where the route names an owner, something well-formed elsewhere.
    static func path(_ route: RouteDescription, owner: String) -> String {
        let values = [
            "patientId": owner, "institutionId": owner, "doctorId": owner, "kind": "blood-pressure", "examId": "exam-1",
            "termId": "HP:0000118", "diseaseId": "OMIM:154700", "releaseId": "1",
        ]
        return route.path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix(":") else { return String(segment) }
            let name = String(segment.dropFirst())
            return values[name] ?? "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"
        }.joined(separator: "/")
    }

    /// The id that makes a route's data the caller's own.
    static func ownID(_ identity: Identity) -> String { identity.institutionID ?? identity.subject }

    static let identities = [
        Identity(subject: "patient-1", role: .patient),
        Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"),
        Identity(subject: "dr-1", role: .consultant),
        Identity(subject: "ops-1", role: .operator),
        Identity(subject: "lab-feed", role: .service),
        Identity(subject: "hospital-ehr", role: .service, scopes: ["patients:read", "patients:write", "exam-results:write", "diagnosis:rank"]),
    ]

    @Test("every route × every role × own and another's data: only the cells the rules allow get past 403")
    func accessMatrix() async throws {
        let stack = try await TestStack.start(Self.services)
        var cells = 0
        var refusals: [String: Int] = [:]
        for service in stack.serviceNames {
            let base = stack.baseURL(service)
            let routes = stack.routes(service)
            #expect(!routes.isEmpty)
            for route in routes {
                for identity in Self.identities {
                    for owner in route.access.ownerParameter == nil ? [Self.ownID(identity)] : [Self.ownID(identity), "someone-else"] {
                        let reply = try await HTTP.send(
                            method: route.method.rawValue, base + Self.path(route, owner: owner), body: [.post, .put].contains(route.method) ? Data("{}".utf8) : nil,
                            as: .identity(identity))
                        let expected = AccessRules.decide(identity, route.access, owner: route.access.ownerParameter == nil ? nil : owner)
                        let cell = "\(route.method) \(route.path) as \(identity.role) \(identity.scopes.sorted()) on \(owner)"
                        switch expected {
                        case .allowed:
                            #expect(![401, 403].contains(reply.status), "\(cell) was refused: \(reply.status)")
                            #expect(reply.status < 500, "\(cell): \(reply.status) \(reply.text)")
                        case .refused, .allowedWithActiveGrant:
                            // No consultant holds a grant in this test.
                            #expect(reply.status == 403, "\(cell) was not refused: \(reply.status)")
                            #expect(reply.text == #"{"error":"the caller may not do this","violations":[]}"#, "\(cell)")
                            refusals[service, default: 0] += 1
                        }
                        cells += 1
                    }
                }
            }
        }
        #expect(cells > 100)
        // Every refusal is in the refusing service's audit trail, with who was refused.
        for (service, schema) in [(IngestService.name, "ingest"), (ScoringService.name, "scoring"), (NotificationService.name, "notification"), (DiagnosisService.name, "diagnosis")] {
            let audited = try await stack.withDatabase(schema: schema) { database, logger in
                try await database.client.fetchAll("SELECT count(*)::int FROM access_audit WHERE outcome = 'refused'", as: Int.self, logger: logger)[0]
            }
            #expect(audited == refusals[service], "\(service): \(audited) refusals audited, \(refusals[service] ?? 0) answered")
        }
        try await stack.shutdown()
    }

    @Test("no token, an expired one, one signed by another key, alg none, or for another audience: 401 with the RFC 6750 challenge")
    func badTokensAreUnauthenticated() async throws {
        let stack = try await TestStack.start(Self.services)
        let owner = Identity(subject: "patient-1", role: .patient)
        let issuer = await TestIdentity.shared.issuer
        let expired = try await issuer.token(for: owner, lifetime: .seconds(60), now: Date().addingTimeInterval(-3600))
        let stranger = try await TokenIssuer(keyID: issuer.keyID, issuer: issuer.issuer, audience: issuer.audience).token(for: owner)
        let otherAudience = try await issuer.token(for: owner, extraClaims: ["aud": .string("someone-else")])
        // The valid token's claims under an unsigned header (RFC 7519 §6.1).
        let valid = try await issuer.token(for: owner)
        let unsigned = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URL + "." + valid.split(separator: ".")[1] + "."
        let badTokens: [(Caller, String)] = [
            (.anonymous, #"Bearer realm="caretide""#),
            (.token("not-a-jwt"), #"error="invalid_token""#),
            (.token(expired), #"error_description="the token has expired""#),
            (.token(stranger), #"error="invalid_token""#),
            (.token(unsigned), #"error="invalid_token""#),
            (.token(otherAudience), #"error_description="the token is meant for another audience""#),
        ]
        for service in stack.serviceNames {
            let base = stack.baseURL(service)
            for route in stack.routes(service) {
                for (caller, challenge) in badTokens {
                    let reply = try await HTTP.send(
                        method: route.method.rawValue, base + Self.path(route, owner: "patient-1"), body: nil, as: caller)
                    #expect(reply.status == 401, "\(route.method) \(route.path): \(reply.status)")
                    #expect(reply.header("WWW-Authenticate")?.contains(challenge) == true, "\(route.path): \(reply.header("WWW-Authenticate") ?? "none")")
                }
            }
            for open in ["/healthz", "/readyz", "/metrics"] {
                #expect(try await HTTP.get(base + open, as: .anonymous).status == 200, "\(service) \(open)")
            }
        }
        try await stack.shutdown()
    }

    @Test("the caller's traceparent is the request id: answered in X-Request-ID and carried as the trace id of the events it causes")
    func requestIDBecomesTraceID() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let measurements = try KafkaProbe(stack.kafka, topic: Topic.measurements.name)
        let reply = try await HTTP.send(
            method: "POST", stack.baseURL(IngestService.name) + "/v1/patients/patient-1/measurements/pulse",
            body: Data(#"{"measurementId": "\#(UUID())", "beatsPerMinute": 72, "takenAt": "2026-11-21T07:55:00Z"}"#.utf8), as: .owner,
            headers: ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.header("X-Request-ID") == "4bf92f3577b34da6a3ce929d0e0e4736")
        let message = try #require(try await measurements.receive(1).first)
        #expect(message.headers[EventHeader.traceID] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(try EventCodec().decode(message.value).traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        await measurements.close()
        try await stack.shutdown()
    }
}

@Suite(.serialized, .stoppingStacks) struct HTTPLayerTests {
    @Test("a fresh service's /metrics names each consumed topic at zero; requests are counted by route pattern, never by path")
    func metricsFromTheStart() async throws {
        let stack = try await TestStack.start([ScoringService.definition])
        let base = stack.baseURL(ScoringService.name)
        let fresh = try await HTTP.get(base + "/metrics", as: .anonymous).text
        for topic in ["caretide.measurements", "caretide.npi", "caretide.risk-profiles", "caretide.exam-results", "caretide.care-team"] {
            #expect(fresh.contains(#"caretide_events_consumed_total{topic="\#(topic)"} 0"#), "\(topic)")
            #expect(fresh.contains(#"caretide_events_dead_lettered_total{topic="\#(topic)"} 0"#), "\(topic)")
            #expect(fresh.contains(#"caretide_consumer_lag{topic="\#(topic)"} 0"#), "\(topic)")
        }
        #expect(try await HTTP.get(base + "/v1/patients/patient-3/assessments").status == 200)
        #expect(try await HTTP.get(base + "/v1/patients/patient-4/assessments", as: .identity(Identity(subject: "patient-3", role: .patient))).status == 403)
        #expect(try await HTTP.get(base + "/no/such/path/patient-3", as: .anonymous).status == 404)
        let counted = try await HTTP.get(base + "/metrics", as: .anonymous).text
        #expect(counted.contains(#"caretide_http_requests_total{route="/v1/patients/{patientId}/assessments",method="GET",status="200"} 1"#), "\(counted)")
        #expect(counted.contains(#"caretide_http_requests_total{route="/v1/patients/{patientId}/assessments",method="GET",status="403"} 1"#))
        #expect(counted.contains(#"caretide_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(counted.contains("caretide_http_request_duration_seconds_bucket"))
        #expect(!counted.contains("patient-3"))
    }
}

extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
