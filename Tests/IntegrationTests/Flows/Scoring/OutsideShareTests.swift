import CaretideIdentity
import CaretideRuntime
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import ScoringService
import Testing

/// A report shared with a doctor outside Caretide, opened in any browser without an account: the patient chooses the
/// period and the parts and gets a link and an access code; the page asks the viewer's name, the code and (when the
/// patient chose it) the date of birth; wrong answers lock the link and, from one address, are throttled; every
/// attempt is in the patient's list; revocation and expiry close the link; nothing in the link alone opens it.
@Suite(.serialized, .stoppingStacks)
struct OutsideShareTests {
    /// The address the doctor's browser has, as the ingress in front of scoring forwards it.
    static let doctorAddress = "203.0.113.7"

    /// Posts the page's form as a browser behind the deployment's ingress would: the ingress (the test's own address,
    /// a trusted proxy here) appends the browser's address to an `X-Forwarded-For` the browser may have forged.
    static func form(_ url: String, _ fields: [String: String]) async throws -> HTTP.Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        return try await HTTP.send(
            method: "POST", url, body: Data(body.utf8), as: .anonymous,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": "198.51.100.66, \(doctorAddress)"])
    }

    @Test("shared with a code: the page asks name, code and date of birth; wrong answers lock and throttle; revoked and expired links close")
    func share() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition]) { configuration in
            configuration.trustedProxies = TrustedProxies(parsing: "127.0.0.1")!
        }
        let (ingest, scoring) = (stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name))
        #expect(
            try await HTTP.send(
                method: "PUT", "\(ingest)/v1/patients/p-out/profile",
                json: #"{"name": {"family": "Okafor", "given": ["Ada"]}, "sex": "female", "birthDate": "1968-04-02"}"#
            ).status / 100 == 2)
        let reading = #"{"measurementId": "\#(UUID())", "systolic": 150, "diastolic": 95, "takenAt": "2026-10-02T07:30:00Z"}"#
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-out/measurements/blood-pressure", json: reading).status == 201)
        let npi = #"{"tumourSizeCm": 2.0, "histologicalGrade": 2, "positiveNodes": 1, "diagnosisDate": "2026-10-05T00:00:00Z"}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-out/npi/\(UUID())", json: npi).status == 201)
        try await eventually("scoring has the readings and the date of birth") {
            let assessed = try await HTTP.get("\(scoring)/v1/patients/p-out/assessments").items().count
            let born = try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll(
                    "SELECT count(*)::int FROM patient_demographics WHERE patient_id = 'p-out' AND birth_date IS NOT NULL", as: Int.self,
                    logger: logger)
            }
            return assessed == 2 && born == [1]
        }

        // Only the patient shares; the answer holds the code once, and the link.
        let shares = "\(scoring)/v1/patients/p-out/outside-shares"
        let body = #"{"from": "2026-10-01", "to": "2026-10-31", "sections": ["measurements"], "askBirthDate": true}"#
        #expect(try await HTTP.post(shares, json: body, as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)
        #expect(try await HTTP.post(shares, json: body, as: .identity(Identity(subject: "dr-x", role: .consultant))).status == 403)
        #expect(try await HTTP.post(shares, json: #"{"expiresInDays": 91}"#).status == 400)
        let created = try await HTTP.post(shares, json: body)
        #expect(created.status == 201)
        let share = try #require(try created.json() as? [String: Any])
        let code = try #require(share["accessCode"] as? String)
        #expect(code.count == 11 && code.contains("-"))
        let page = scoring + (try #require(share["link"] as? String))

        // The page opens without a token, asks name, code and date of birth, and runs nothing.
        let form = try await HTTP.get(page, as: .anonymous)
        #expect(form.status == 200 && form.text.contains("name=\"code\"") && form.text.contains("name=\"birthDate\""))
        #expect(form.header("Content-Security-Policy")?.contains("form-action 'self'") == true && form.header("Cache-Control") == "no-store")
        #expect(form.header("X-Robots-Tag") == "noindex, nofollow" && form.header("Referrer-Policy") == "no-referrer")
        let output = Paths.packageRoot.appendingPathComponent(".build/test-output/outside-share")
        #expect(try await Chromium.render(form.text, name: "outside-share-form", in: output).consoleLines.isEmpty)

        // No name, a wrong code, a wrong date of birth: refused, the report not shown.
        #expect(try await Self.form(page, ["code": code, "birthDate": "1968-04-02"]).status == 400)
        let wrong = try await Self.form(page, ["name": "Dr Ana Reis", "code": "00000-00000", "birthDate": "1968-04-02"])
        #expect(wrong.status == 403 && !wrong.text.contains("Blood pressure"))
        #expect(try await Self.form(page, ["name": "Dr Ana Reis", "code": code, "birthDate": "1968-04-03"]).status == 403)

        // The right answers: the parts shared, read-only, private; typed in lower case and without the dash too.
        let opened = try await Self.form(
            page, ["name": "Dr Ana Reis", "code": code.lowercased().replacingOccurrences(of: "-", with: ""), "birthDate": "1968-04-02"])
        #expect(opened.status == 200 && opened.text.contains("<h2>Blood pressure</h2>") && !opened.text.contains("Nottingham"))
        #expect(opened.header("Content-Security-Policy")?.contains("default-src 'none'") == true && opened.header("Cache-Control") == "no-store")
        #expect(opened.header("X-Robots-Tag") == "noindex, nofollow" && opened.header("Referrer-Policy") == "no-referrer")
        // As a browser shows the report and the refusal: nothing on either page runs or fails to load.
        #expect(try await Chromium.render(opened.text, name: "outside-share-report", in: output).consoleLines.isEmpty)
        #expect(try await Chromium.render(wrong.text, name: "outside-share-refused", in: output).consoleLines.isEmpty)
        let pdf = try await Self.form(page, ["name": "Dr Ana Reis", "code": code, "birthDate": "1968-04-02", "format": "pdf"])
        #expect(pdf.status == 200 && pdf.header("Content-Type") == "application/pdf" && pdf.body.starts(with: Array("%PDF".utf8)))

        // The patient sees it opened, by whom and from where, and every refusal.
        let listed = try #require(try await HTTP.get(shares).items().first)
        #expect(listed["status"] as? String == "active" && listed["openings"] as? Int == 2 && listed["lastOpenedAt"] != nil)
        let shareID = try #require(share["shareId"] as? String)
        let openings = try await HTTP.get("\(shares)/\(shareID)/openings").items()
        #expect(openings.map { $0["outcome"] as? String } == ["refused", "refused", "opened", "opened"])
        #expect(openings.allSatisfy { $0["viewerName"] as? String == "Dr Ana Reis" && $0["address"] as? String == Self.doctorAddress })
        #expect(try await HTTP.get("\(shares)/\(shareID)/openings", as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)

        // Every attempt is in the patient's access log too, by the share, with the name given and the address.
        let log = try await HTTP.get("\(scoring)/v1/patients/p-out/access-log?limit=100").items()
        let viewers = log.filter { $0["role"] as? String == "outsideViewer" }.reversed()
        #expect(viewers.map { $0["outcome"] as? String } == ["refused", "refused", "allowed", "allowed"])
        #expect(viewers.map { $0["status"] as? Int } == [403, 403, 200, 200])
        #expect(
            viewers.allSatisfy {
                $0["subject"] as? String == "outside-share:\(shareID)" && $0["operation"] as? String == "POST /v1/outside-shares/:shareId"
                    && $0["action"] as? String == "read" && ($0["viewer"] as? [String: Any])?["name"] as? String == "Dr Ana Reis"
                    && ($0["viewer"] as? [String: Any])?["address"] as? String == Self.doctorAddress
            })
        // The patient's own requests carry no viewer.
        #expect(log.filter { $0["role"] as? String == "patient" }.allSatisfy { $0["viewer"] == nil })
        var failures = 2

        // Five wrong codes lock a link: even the right code then opens nothing.
        let second = try #require(try await HTTP.post(shares, json: #"{"sections": ["npi"]}"#).json() as? [String: Any])
        let secondPage = scoring + (second["link"] as? String ?? "")
        for attempt in 1...5 {
            let reply = try await Self.form(secondPage, ["name": "Someone", "code": "AAAAA-AAAAA"])
            #expect(reply.status == (attempt < 5 ? 403 : 423), "attempt \(attempt)")
        }
        #expect(try await Self.form(secondPage, ["name": "Someone", "code": second["accessCode"] as? String ?? ""]).status == 423)
        #expect(try await HTTP.get(secondPage, as: .anonymous).status == 423)
        failures += 6

        // Revoked and expired links open nothing, and say so alike.
        #expect(try await HTTP.send(method: "DELETE", "\(shares)/\(shareID)").status == 204)
        let revoked = try await HTTP.get(page, as: .anonymous)
        #expect(revoked.status == 410 && revoked.text.contains("no longer opens a report"))
        #expect(try await Chromium.render(revoked.text, name: "outside-share-gone", in: output).consoleLines.isEmpty)
        #expect(try await Self.form(page, ["name": "Dr Ana Reis", "code": code, "birthDate": "1968-04-02"]).status == 410)
        let third = try #require(try await HTTP.post(shares, json: "{}").json() as? [String: Any])
        let thirdID = try #require(third["shareId"] as? String)
        try await stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.query(
                "UPDATE outside_shares SET expires_at = now() - interval '1 second' WHERE share_id = \(UUID(uuidString: thirdID)!)", logger: logger)
        }
        #expect(try await HTTP.get(scoring + (third["link"] as? String ?? ""), as: .anonymous).status == 410)
        #expect(try await HTTP.get(shares).items().compactMap { $0["status"] as? String }.sorted() == ["expired", "locked", "revoked"])

        // Twenty wrong answers from one address in 15 minutes: the address is refused for a while, on any link.
        var fourthPage = ""
        while failures < OutsideShareLimits.perAddress {
            if fourthPage.isEmpty || failures % 4 == 0 {
                fourthPage = scoring + ((try await HTTP.post(shares, json: "{}").json() as? [String: Any])?["link"] as? String ?? "")
            }
            #expect(try await Self.form(fourthPage, ["name": "Someone", "code": "BBBBB-BBBBB"]).status == 403)
            failures += 1
        }
        let fresh = try #require(try await HTTP.post(shares, json: "{}").json() as? [String: Any])
        let throttled = try await Self.form(
            scoring + (fresh["link"] as? String ?? ""), ["name": "Someone", "code": fresh["accessCode"] as? String ?? ""])
        #expect(throttled.status == 429)
        try await stack.shutdown()
    }
}

/// The limits the test counts against (`OutsideShareStore`).
enum OutsideShareLimits {
    static let perAddress = 20
}
