import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import DiagnosisService
import Foundation
import HTTPTypes
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import ServiceLifecycle
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
            // An outside share's page is reached without a token; its code is what is checked (OutsideShareTests).
            for route in routes where route.access != .outsideViewer {
                for identity in Self.identities {
                    for owner in route.access.ownerParameter == nil ? [Self.ownID(identity)] : [Self.ownID(identity), "someone-else"] {
                        let reply = try await HTTP.send(
                            method: route.method.rawValue, base + Self.path(route, owner: owner),
                            body: [.post, .put].contains(route.method) ? Data("{}".utf8) : nil,
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
        for (service, schema) in [
            (IngestService.name, "ingest"), (ScoringService.name, "scoring"), (NotificationService.name, "notification"),
            (DiagnosisService.name, "diagnosis"),
        ] {
            let audited = try await stack.withDatabase(schema: schema) { database, logger in
                try await database.client.fetchAll("SELECT count(*)::int FROM access_audit WHERE outcome = 'refused'", as: Int.self, logger: logger)[
                    0]
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
        let unsigned = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + valid.split(separator: ".")[1] + "."
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
            // An outside share's page takes no token at all, so none is judged there.
            for route in stack.routes(service) where route.access != .outsideViewer {
                for (caller, challenge) in badTokens {
                    let reply = try await HTTP.send(
                        method: route.method.rawValue, base + Self.path(route, owner: "patient-1"), body: nil, as: caller)
                    #expect(reply.status == 401, "\(route.method) \(route.path): \(reply.status)")
                    #expect(
                        reply.header("WWW-Authenticate")?.contains(challenge) == true, "\(route.path): \(reply.header("WWW-Authenticate") ?? "none")")
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
        // Readiness and the outbox's backlog, as the alert rules read them (deploy/prometheus/caretide-rules.yml).
        #expect(fresh.contains("caretide_ready 1"), "\(fresh)")
        #expect(fresh.contains(#"caretide_readiness_check{check="database"} 1"#))
        #expect(fresh.contains("caretide_outbox_pending 0"))
        #expect(try await HTTP.get(base + "/v1/patients/patient-3/assessments").status == 200)
        #expect(
            try await HTTP.get(base + "/v1/patients/patient-4/assessments", as: .identity(Identity(subject: "patient-3", role: .patient))).status
                == 403)
        #expect(try await HTTP.get(base + "/no/such/path/patient-3", as: .anonymous).status == 404)
        let counted = try await HTTP.get(base + "/metrics", as: .anonymous).text
        #expect(
            counted.contains(#"caretide_http_requests_total{route="/v1/patients/{patientId}/assessments",method="GET",status="200"} 1"#), "\(counted)"
        )
        #expect(counted.contains(#"caretide_http_requests_total{route="/v1/patients/{patientId}/assessments",method="GET",status="403"} 1"#))
        #expect(counted.contains(#"caretide_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(counted.contains("caretide_http_request_duration_seconds_bucket"))
        #expect(!counted.contains("patient-3"))
    }
}

@Suite(.serialized, .stoppingStacks) struct MetricsPortTests {
    @Test("with METRICS_PORT, /metrics answers on its own port only; probes stay on the API port")
    func metricsOnTheirOwnPort() async throws {
        let stack = try await TestStack.start([NotificationService.definition]) { $0.metricsPort = 0 }
        let base = stack.baseURL(NotificationService.name)
        let port = try await stack.assembly(NotificationService.name).boundMetricsPort.wait()
        #expect(try await HTTP.get(base + "/metrics", as: .anonymous).status == 404)
        // Ready once its consumer has joined its group, which a loaded test run can take a while to grant.
        try await eventually("/readyz answers 200 on the API port") { try await HTTP.get(base + "/readyz", as: .anonymous).status == 200 }
        let metrics = try await HTTP.get("http://127.0.0.1:\(port)/metrics", as: .anonymous)
        #expect(metrics.status == 200)
        #expect(metrics.text.contains(#"caretide_events_consumed_total{topic="caretide.scores"} 0"#))
        #expect(try await HTTP.get("http://127.0.0.1:\(port)/v1/patients/p-1/alerts", as: .anonymous).status == 404)
    }
}

/// Keys from the identity provider's certs endpoint (`AUTH_JWKS_URL`), served here by a plain HTTP server over a
/// directory, as Keycloak's `…/protocol/openid-connect/certs` would serve them.
@Suite(.serialized, .stoppingStacks) struct JWKSURLTests {
    /// A `python3 -m http.server` over a fresh directory; `publish` replaces what it serves.
    final class KeyServer: Sendable {
        let directory: URL
        let port: Int
        let process: ServiceProcess

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-jwks-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            port = try FreePort.find()
            process = ServiceProcess(
                name: "jwks-server", executable: URL(fileURLWithPath: "/usr/bin/python3"),
                arguments: ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory.path],
                environment: ProcessInfo.processInfo.environment)
        }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/certs.json")! }

        func publish(_ issuers: [TokenIssuer]) throws {
            // One key set holding every issuer's key.
            let keys = issuers.map { issuer in
                String(issuer.jwks.dropFirst(#"{"keys":["#.count).dropLast(2))
            }
            try Data(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8).write(to: directory.appendingPathComponent("certs.json"), options: .atomic)
        }

        func start() async throws {
            try process.start()
            try await eventually("the key server answers", timeout: .seconds(30)) {
                (try? await HTTP.get(self.url.absoluteString, as: .anonymous))?.status == 200
            }
        }

        func stop() async {
            await process.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Ends the server at once; for a `defer`, which cannot wait. Unlike a service, it does not end with the test
        /// process, so a test that failed before stopping it would leave it running after the tests.
        func kill() {
            process.killHard()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test(
        "keys are fetched at start and again every refresh period: a rotated key is trusted, a retired one refused, and the keys are kept while the provider is down"
    )
    func rotation() async throws {
        let server = try KeyServer()
        defer { server.kill() }
        let first = TokenIssuer(keyID: "2026-1", issuer: "https://id.example/realms/caretide", audience: "caretide")
        let second = TokenIssuer(keyID: "2026-2", issuer: first.issuer, audience: first.audience)
        try server.publish([first])
        try await server.start()
        let stack = try await TestStack.start([ScoringService.definition]) { configuration in
            configuration.auth = .tokens(keys: .url(server.url, refresh: .seconds(1)), rules: first.rules)
        }
        let url = stack.baseURL(ScoringService.name) + "/v1/patients/patient-1/assessments"
        let owner = Identity(subject: "patient-1", role: .patient)
        let (tokenOne, tokenTwo) = (try await first.token(for: owner), try await second.token(for: owner))
        #expect(try await HTTP.get(url, as: .token(tokenOne)).status == 200)
        #expect(try await HTTP.get(url, as: .token(tokenTwo)).status == 401)

        // The provider rotates: the new key alone.
        try server.publish([second])
        try await eventually("the rotated key is trusted", timeout: .seconds(30)) { try await HTTP.get(url, as: .token(tokenTwo)).status == 200 }
        #expect(try await HTTP.get(url, as: .token(tokenOne)).status == 401)

        // The provider goes away: the keys in hand keep working. Its port then takes connections and closes them, so
        // the service's fetches fail; a second attempt shows the first failure was handled (retried after it).
        await server.stop()
        let provider = try ConnectionCounter(port: server.port)
        #expect(try await provider.waitForConnections(2), "the service fetches the keys again")
        #expect(try await HTTP.get(url, as: .token(tokenTwo)).status == 200)
        try await stack.shutdown()
    }

    @Test("until the first fetch succeeds the service is not ready and API requests get 503, not a misleading 401")
    func unreachableAtStart() async throws {
        let nowhere = URL(string: "http://127.0.0.1:\(try FreePort.find())/certs.json")!
        let broker = try EmbeddedBroker(logger: TestLogging.logger("broker"))
        let configuration = ServiceConfiguration(
            serviceName: ScoringService.name, httpPort: 0, database: try await TestPostgres.freshDatabase(),
            kafka: KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: TestStack.consumerProperties),
            auth: .tokens(keys: .url(nowhere, refresh: .seconds(10)), rules: TokenRules(issuer: "https://id.example", audience: "caretide")))
        let assembly = try await ServiceAssembly(
            definition: ScoringService.definition, configuration: configuration, logger: TestLogging.logger("scoring"), signals: false)
        try await withRunning(assembly) {
            let base = "http://127.0.0.1:\(try await assembly.boundPort.wait())"
            try await eventually("migrated", timeout: .seconds(60)) {
                let checks = (try? await HTTP.get(base + "/readyz", as: .anonymous).json() as? [String: Any])?["checks"] as? [String: Bool]
                return checks?["migrated"] == true
            }
            let ready = try await HTTP.get(base + "/readyz", as: .anonymous)
            #expect(ready.status == 503)
            #expect(((try ready.json() as? [String: Any])?["checks"] as? [String: Bool])?["authKeys"] == false)
            #expect(try await HTTP.get(base + "/v1/patients/patient-1/assessments").status == 503)
        }
    }
}
