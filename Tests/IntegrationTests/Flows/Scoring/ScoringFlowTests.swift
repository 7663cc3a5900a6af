import CaretideDomain
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// The clinical pipeline beyond the walking skeleton: every kind of input is assessed, corrections supersede,
/// deletions and entered-in-error marks withdraw, and nothing downstream keeps acting on a retracted value.
@Suite(.serialized, .stoppingStacks) struct ScoringFlowTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition]

    struct Pipeline {
        let stack: TestStack
        let scores: KafkaProbe
        let alerts: KafkaProbe

        static func start() async throws -> Pipeline {
            let stack = try await TestStack.start(ScoringFlowTests.services)
            return Pipeline(
                stack: stack, scores: try KafkaProbe(stack.kafka, topic: Topic.scores.name),
                alerts: try KafkaProbe(stack.kafka, topic: Topic.alerts.name))
        }

        var ingest: String { stack.baseURL(IngestService.name) }

        func send(_ method: String, _ path: String, _ json: String = "{}") async throws -> HTTP.Reply {
            try await HTTP.send(method: method, ingest + path, json: json)
        }

        func nextScores(_ count: Int) async throws -> [ValidatedEvent] { try await scores.receive(count).map { try EventCodec().decode($0.value) } }
        func nextAlerts(_ count: Int) async throws -> [ValidatedEvent] { try await alerts.receive(count).map { try EventCodec().decode($0.value) } }

        func stop() async throws {
            await scores.close()
            await alerts.close()
            try await stack.shutdown()
        }
    }

    @Test("every measurement kind is assessed with its own rule")
    func everyKindIsAssessed() async throws {
        let pipeline = try await Pipeline.start()
        let bodies: [(String, String)] = [
            ("pulse", #""beatsPerMinute": 128"#),
            ("body-measurement", #""weightKg": 95, "heightCm": 175"#),
            ("glucose", #""value": 7.2, "unit": "mmolPerL", "context": "fasting""#),
            ("hba1c", #""percent": 5.9"#),
            ("lipid-panel", #""unit": "mgPerDL", "sex": "male", "totalCholesterol": 245, "hdlCholesterol": 38"#),
        ]
        for (kind, values) in bodies {
            let reply = try await pipeline.send(
                "POST", "/v1/patients/p-kinds/measurements/\(kind)",
                #"{"measurementId": "\#(UUID())", "takenAt": "2026-11-20T08:00:00Z", \#(values)}"#)
            #expect(reply.status == 201, "\(kind): \(reply.text)")
        }
        let assessed = try await pipeline.nextScores(5).compactMap { $0.payload(as: AssessmentRecorded.self) }
        let byKind = Dictionary(uniqueKeysWithValues: assessed.map { ($0.kind, $0) })
        #expect(byKind[.pulse]?.category == .pulse(.tachycardia))
        #expect(byKind[.bodyMassIndex]?.category == .bodyMassIndex(.obeseClassI))
        #expect(byKind[.glucose]?.category == .glucose(.diabetesRange))
        #expect(byKind[.hba1c]?.category == .hba1c(.prediabetes))
        #expect(byKind[.lipids]?.severity == .attention)
        #expect(assessed.allSatisfy { $0.ruleSetVersion == RuleSetVersion.current })
        try await pipeline.stop()
    }

    @Test("a corrected reading supersedes its assessment and withdraws the alert it raised")
    func correctionSupersedes() async throws {
        let pipeline = try await Pipeline.start()
        let id = UUID().uuidString.lowercased()
        let path = "/v1/patients/p-correct/measurements/blood-pressure"
        #expect(
            try await pipeline.send(
                "POST", path, #"{"measurementId": "\#(id)", "systolic": 186, "diastolic": 95, "takenAt": "2026-11-20T08:00:00Z"}"#
            ).status == 201)
        let first = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        #expect(first.category == .bloodPressure(.hypertensiveCrisis))
        let raised = try #require(try await pipeline.nextAlerts(1)[0].payload(as: AlertRaised.self))
        #expect(raised.aboutID == first.assessmentID)

        let correction = try await pipeline.send(
            "PUT", "\(path)/\(id)", #"{"measurementId": "\#(id)", "systolic": 118, "diastolic": 76, "takenAt": "2026-11-20T08:00:00Z"}"#)
        #expect(correction.status == 200)
        #expect((try correction.json() as? [String: Any])?["revision"] as? Int == 2)
        let second = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        #expect(second.supersedes == first.assessmentID)
        #expect(second.category == .bloodPressure(.normal))
        let withdrawn = try #require(try await pipeline.nextAlerts(1)[0].payload(as: AlertWithdrawn.self))
        #expect(withdrawn.alertID == raised.alertID)
        #expect(withdrawn.reason == .superseded)

        // The same body again changes nothing; the history keeps both assessments, one standing.
        #expect(
            (try await pipeline.send(
                "PUT", "\(path)/\(id)", #"{"measurementId": "\#(id)", "systolic": 118, "diastolic": 76, "takenAt": "2026-11-20T08:00:00Z"}"#
            ).json() as? [String: Any])?["status"] as? String == "unchanged")
        let history = try await HTTP.get(pipeline.stack.baseURL(ScoringService.name) + "/v1/patients/p-correct/assessments").items()
        #expect(history.count == 2)
        #expect(history.first?["supersededBy"] as? String == second.assessmentID.uuidString.lowercased())
        // Each assessment carries its tip as text, not only its key, in the caller's language (English here).
        let last = try #require(history.last)
        #expect(last["tip"] as? String == "bloodPressure.normal")
        #expect(last["tipText"] as? String == Tips.english[.bloodPressureNormal])
        #expect(last["severityLabel"] as? String == "Normal")
        let asked = try await HTTP.send(
            method: "GET", pipeline.stack.baseURL(ScoringService.name) + "/v1/patients/p-correct/assessments", body: nil, as: .owner,
            headers: ["Accept-Language": "pt-BR, en;q=0.5"])
        #expect(asked.header("Content-Language") == "en")
        let inbox = try await HTTP.get(pipeline.stack.baseURL(NotificationService.name) + "/v1/patients/p-correct/alerts")
        #expect(try inbox.items().isEmpty)
        #expect(try await pipeline.scores.drain(for: .seconds(1)).isEmpty)
        try await pipeline.stop()
    }

    @Test("a deleted measurement withdraws its assessment and its alert")
    func deletionWithdraws() async throws {
        let pipeline = try await Pipeline.start()
        let id = UUID().uuidString.lowercased()
        let path = "/v1/patients/p-delete/measurements/glucose"
        #expect(
            try await pipeline.send(
                "POST", path,
                #"{"measurementId": "\#(id)", "value": 135, "unit": "mgPerDL", "context": "fasting", "takenAt": "2026-11-20T07:00:00Z"}"#
            ).status == 201)
        let assessed = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        _ = try await pipeline.nextAlerts(1)
        #expect(try await pipeline.send("DELETE", "\(path)/\(id)").status == 200)
        let withdrawal = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentWithdrawn.self))
        #expect(withdrawal.assessmentID == assessed.assessmentID)
        #expect(withdrawal.reason == .measurementDeleted)
        #expect(try await pipeline.nextAlerts(1)[0].payload(as: AlertWithdrawn.self)?.reason == .measurementDeleted)
        #expect(
            try await pipeline.send(
                "PUT", "\(path)/\(id)",
                #"{"measurementId": "\#(id)", "value": 90, "unit": "mgPerDL", "context": "fasting", "takenAt": "2026-11-20T07:00:00Z"}"#
            ).status == 409)
        #expect(try await pipeline.send("DELETE", "\(path)/\(UUID())").status == 404)
        try await pipeline.stop()
    }

    @Test("an institution's exam report is flagged item by item, its patient told when it is released; entered-in-error retracts both")
    func examReport() async throws {
        let pipeline = try await Pipeline.start()
        let report =
            #"{"patientId": "p-exam", "reportedAt": "2026-11-21T06:10:00Z", "items": [{"code": "2345-7", "name": "Glucose", "value": 450, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99, "criticalHigh": 400, "comment": "Repeat urgently"}, {"code": "718-7", "name": "Haemoglobin", "value": 13.9, "unit": "g/dL", "referenceLow": 12, "referenceHigh": 15.5}]}"#
        #expect(try await pipeline.send("PUT", "/v1/institutions/st-mary/exam-results/LAB-1", report).status == 201)
        let flagged = try #require(try await pipeline.nextScores(1)[0].payload(as: ExamResultFlagged.self))
        #expect(flagged.items.map(\.interpretation) == [.HH, .N])
        #expect(flagged.items[0].comment == "Repeat urgently")
        #expect(flagged.severity == .urgent)
        // The patient hears of the report as it is released (at once: the institution has no rules), with how many
        // items are out of range and no values; the finding itself goes to the care team (there is none here).
        let alert = try #require(try await pipeline.nextAlerts(1)[0].payload(as: AlertRaised.self))
        #expect(alert.kind == "examResultReady" && alert.category == "released" && alert.outOfRangeCount == 1)
        #expect(alert.recipientID == "p-exam" && alert.recipientRole == .patient && alert.severity == .normal)

        #expect(try await pipeline.send("POST", "/v1/institutions/st-mary/exam-results/LAB-1/entered-in-error").status == 200)
        #expect(try await pipeline.nextScores(1)[0].payload(as: AssessmentWithdrawn.self)?.reason == .enteredInError)
        #expect(try await pipeline.nextAlerts(1)[0].payload(as: AlertWithdrawn.self)?.alertID == alert.alertID)
        try await pipeline.stop()
    }

    @Test("values the clinical rules cannot assess get a 422 naming each field, and nothing is stored")
    func clinicallyInvalidValues() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let npi = try await HTTP.send(
            method: "PUT", ingest + "/v1/patients/p-bad/npi/\(UUID())",
            json: #"{"tumourSizeCm": 2, "histologicalGrade": 2, "lymphNodeStage": 2, "positiveNodes": 3, "diagnosisDate": "2999-01-01T00:00:00Z"}"#)
        #expect(npi.status == 422)
        let pointers = Set(((try npi.json() as? [String: Any])?["violations"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String })
        #expect(pointers.contains("/positiveNodes"))

        let future = try await HTTP.send(
            method: "PUT", ingest + "/v1/patients/p-bad/npi/\(UUID())",
            json: #"{"tumourSizeCm": 2, "histologicalGrade": 2, "lymphNodeStage": 2, "diagnosisDate": "2999-01-01T00:00:00Z"}"#)
        #expect(future.status == 422)
        #expect(future.text.contains("/diagnosisDate"))

        let profile = try await HTTP.send(
            method: "PUT", ingest + "/v1/patients/p-bad/melanoma-risk-profiles/\(UUID())", json: #"{"age": 9999, "fitzpatrickSkinType": 7}"#)
        #expect(profile.status == 400)
        // Sex is not among them: the schema leaves it to the rule, which takes it from the patient's profile if it can.
        for field in ["/age", "/fitzpatrickSkinType", "/eyeColour", "/sunburnHistory"] { #expect(profile.text.contains(field), "\(field)") }
        let stored = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM records", as: Int.self, logger: logger).first
        }
        #expect(stored == 0)
        try await stack.shutdown()
    }

    @Test("three stage-2 readings in a row raise one care-tracking flag, however long the run grows")
    func careTracking() async throws {
        let pipeline = try await Pipeline.start()
        // Sent out of order, as an offline app might sync them: the series is judged by when readings were taken.
        for day in [21, 19, 20, 22] {
            #expect(
                try await pipeline.send(
                    "POST", "/v1/patients/p-trend/measurements/blood-pressure",
                    #"{"measurementId": "\#(UUID())", "systolic": 150, "diastolic": 95, "takenAt": "2026-11-\#(day)T08:00:00Z"}"#
                ).status == 201)
        }
        let events = try await pipeline.nextScores(5)
        let flags = events.compactMap { $0.payload(as: CareTrackingFlagged.self) }
        #expect(flags.count == 1)
        #expect(flags.first?.rule == .sustainedStage2BloodPressure)
        #expect(try await pipeline.scores.drain(for: .seconds(2)).isEmpty)
        try await eventually("the flag in the patient's alerts") {
            try await HTTP.get(pipeline.stack.baseURL(NotificationService.name) + "/v1/patients/p-trend/alerts").items()
                .filter { $0["kind"] as? String == "careTracking" }.count == 1
        }
        try await pipeline.stop()
    }

    @Test("three rising fasting glucose values whose category goes up raise one flag; random readings in between do not count")
    func risingFastingGlucose() async throws {
        let pipeline = try await Pipeline.start()
        let path = "/v1/patients/p-glucose/measurements/glucose"
        // mmol/L 5.2 → 5.8 → 7.4 fasting (normal → prediabetes → diabetes range), with a random reading in between
        // that the rule must skip, and the last value in mg/dL.
        let readings = [
            #""value": 5.2, "unit": "mmolPerL", "context": "fasting", "takenAt": "2026-11-18T07:00:00Z""#,
            #""value": 5.8, "unit": "mmolPerL", "context": "fasting", "takenAt": "2026-11-19T07:00:00Z""#,
            #""value": 9.0, "unit": "mmolPerL", "context": "random", "takenAt": "2026-11-19T19:00:00Z""#,
            #""value": 133, "unit": "mgPerDL", "context": "fasting", "takenAt": "2026-11-20T07:00:00Z""#,
        ]
        for reading in readings {
            #expect(try await pipeline.send("POST", path, #"{"measurementId": "\#(UUID())", \#(reading)}"#).status == 201)
        }
        let flags = try await pipeline.nextScores(5).compactMap { $0.payload(as: CareTrackingFlagged.self) }
        #expect(flags.map(\.rule) == [.risingFastingGlucose])
        #expect(flags.first?.firstObservedAt == Timestamp.parse("2026-11-18T07:00:00Z"))
        #expect(try await pipeline.scores.drain(for: .seconds(2)).isEmpty)
        try await pipeline.stop()
    }

    @Test("NPI inputs and a melanoma risk profile are assessed; a later NPI in another prognostic group is tracked")
    func npiAndMelanoma() async throws {
        let pipeline = try await Pipeline.start()
        let npiID = UUID().uuidString.lowercased()
        #expect(
            try await pipeline.send(
                "PUT", "/v1/patients/p-onc/npi/\(npiID)",
                #"{"tumourSizeCm": 1.5, "histologicalGrade": 1, "positiveNodes": 0, "diagnosisDate": "2026-10-01T00:00:00Z"}"#
            ).status == 201)
        let npi = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        #expect(npi.kind == .nottinghamPrognosticIndex && npi.category == .nottinghamPrognosticIndex(.excellent) && npi.values["npi"] == 2.3)

        #expect(
            try await pipeline.send(
                "PUT", "/v1/patients/p-onc/melanoma-risk-profiles/\(UUID())",
                #"{"age": 46, "sex": "female", "fitzpatrickSkinType": 1, "eyeColour": "blueOrGrey", "hairColour": "red", "commonMoles": "over100", "atypicalMoleCount": 6, "freckling": "many", "familyHistory": "moreThanOneFirstDegreeRelative", "personalHistory": "melanoma", "immunosuppression": ["organTransplant"], "sunburnHistory": true}"#
            ).status == 201)
        let melanoma = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        #expect(melanoma.kind == .melanomaRisk && melanoma.category == .melanomaRisk(.higher) && melanoma.severity == .attention)

        // Re-staging a month later: 0.2 × 3.0 + 3 + 3 = 6.6, poor.
        #expect(
            try await pipeline.send(
                "PUT", "/v1/patients/p-onc/npi/\(UUID())",
                #"{"tumourSizeCm": 3.0, "histologicalGrade": 3, "positiveNodes": 4, "diagnosisDate": "2026-11-01T00:00:00Z"}"#
            ).status == 201)
        let events = try await pipeline.nextScores(2)
        #expect(events.compactMap { $0.payload(as: AssessmentRecorded.self) }.first?.category == .nottinghamPrognosticIndex(.poor))
        #expect(events.compactMap { $0.payload(as: CareTrackingFlagged.self) }.first?.rule == .npiPrognosticGroupChanged)

        // The patient reads the NPI history with groups and curves, oldest diagnosis first.
        let scoring = pipeline.stack.baseURL(ScoringService.name)
        let history = try await HTTP.get(scoring + "/v1/patients/p-onc/npi").items()
        #expect(history.map { $0["group"] as? String } == ["excellent", "poor"])
        #expect(history.first?["npiId"] as? String == npiID)
        #expect(history.first?["npi"] as? Double == 2.3 && history.last?["fiveYearSurvivalPercent"] as? Int == 50)
        #expect((history.first?["inputs"] as? [String: Any])?["tumourSizeCm"] as? Double == 1.5)
        #expect(history.first?["tipText"] as? String != nil)
        let curve = history.last?["survivalCurve"] as? [[String: Any]] ?? []
        #expect(curve.map { $0["monthsSinceDiagnosis"] as? Int } == Array(stride(from: 0, through: 60, by: 6)))
        #expect(curve.first?["survivalProbability"] as? Double == 1 && curve.last?["survivalProbability"] as? Double == 0.5)

        // The current melanoma risk category comes first, with the factors it was made of.
        let risk = try await HTTP.get(scoring + "/v1/patients/p-onc/melanoma-risk").items()
        #expect(risk.count == 1 && risk.first?["category"] as? String == "higher")
        #expect((risk.first?["factors"] as? [String: Any])?["hairColour"] as? String == "red")
        #expect(risk.first?["selfExaminationIntervalMonths"] as? Int != nil)

        // The whole history filters by kind; another patient's reads are refused.
        let onlyNPI = try await HTTP.get(scoring + "/v1/patients/p-onc/assessments?kind=nottinghamPrognosticIndex").items()
        #expect(onlyNPI.count == 2 && onlyNPI.allSatisfy { $0["kind"] as? String == "nottinghamPrognosticIndex" && $0["inputs"] != nil })
        #expect(try await HTTP.get(scoring + "/v1/patients/p-onc/assessments?kind=npi").status == 400)
        let stranger = Caller.identity(.init(subject: "p-other", role: .patient))
        #expect(try await HTTP.get(scoring + "/v1/patients/p-onc/npi", as: stranger).status == 403)
        try await pipeline.stop()
    }

    @Test(
        "An NPI entry deleted, online or offline, is withdrawn from the history and the series; a risk profile uploaded offline is assessed, and withdrawn by an offline deletion"
    )
    func npiDeleted() async throws {
        let pipeline = try await Pipeline.start()
        let scoring = pipeline.stack.baseURL(ScoringService.name)
        let inputs = #"{"tumourSizeCm": 1.5, "histologicalGrade": 1, "positiveNodes": 0, "diagnosisDate": "2026-10-01T00:00:00Z"}"#
        let (kept, deleted, offline) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        for id in [kept, deleted] { #expect(try await pipeline.send("PUT", "/v1/patients/p-del/npi/\(id)", inputs).status == 201) }
        let recorded = try await pipeline.nextScores(2).compactMap { $0.payload(as: AssessmentRecorded.self) }
        #expect(Set(recorded.map(\.subjectID)) == [kept, deleted])

        let deletion = try await pipeline.send("DELETE", "/v1/patients/p-del/npi/\(deleted)")
        let deletionStatus = (try deletion.json() as? [String: Any])?["status"] as? String
        #expect(deletion.status == 200 && deletionStatus == "deleted")
        let withdrawn = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentWithdrawn.self))
        #expect(withdrawn.subjectID == deleted && withdrawn.reason == .npiDeleted && withdrawn.kind == .nottinghamPrognosticIndex)
        // Deleting again changes nothing; an id never used is not found; another patient may not.
        #expect(try await pipeline.send("DELETE", "/v1/patients/p-del/npi/\(deleted)").status == 200)
        #expect(try await pipeline.send("DELETE", "/v1/patients/p-del/npi/\(UUID())").status == 404)
        let stranger = Caller.identity(.init(subject: "p-other", role: .patient))
        #expect(try await HTTP.send(method: "DELETE", pipeline.ingest + "/v1/patients/p-del/npi/\(kept)", as: stranger).status == 403)

        // Offline: an NPI and a risk profile recorded, then deleted, in two uploads.
        let profile = UUID().uuidString.lowercased()
        let answers =
            #"{"age": 46, "sex": "female", "fitzpatrickSkinType": 1, "eyeColour": "blueOrGrey", "hairColour": "red", "commonMoles": "over100", "atypicalMoleCount": 6, "freckling": "many", "familyHistory": "moreThanOneFirstDegreeRelative", "personalHistory": "melanoma", "immunosuppression": ["organTransplant"], "sunburnHistory": true}"#
        // The NPI as the changes feed gives an entry back, with who entered it: the server sets that again.
        let fromFeed = String(inputs.dropLast()) + #", "recordedBy": {"role": "patient", "id": "p-del"}}"#
        let upload = try await pipeline.send(
            "POST", "/v1/patients/p-del/changes",
            #"{"changes": [{"kind": "npi", "id": "\#(offline)", "updatedAt": "2026-11-20T08:00:00Z", "record": \#(fromFeed)}, {"kind": "melanoma-risk-profile", "id": "\#(profile)", "updatedAt": "2026-11-20T08:00:00Z", "record": \#(answers)}]}"#
        )
        #expect(upload.status == 200)
        let results = try #require((try upload.json() as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? String } == ["recorded", "recorded"])
        let offlineScores = try await pipeline.nextScores(2).compactMap { $0.payload(as: AssessmentRecorded.self) }
        #expect(Set(offlineScores.map(\.kind)) == [.nottinghamPrognosticIndex, .melanomaRisk])
        let removal = try await pipeline.send(
            "POST", "/v1/patients/p-del/changes",
            #"{"changes": [{"kind": "npi", "id": "\#(offline)", "updatedAt": "2026-11-21T08:00:00Z", "deleted": true}, {"kind": "melanoma-risk-profile", "id": "\#(profile)", "updatedAt": "2026-11-21T08:00:00Z", "deleted": true}]}"#
        )
        let removed = (try removal.json() as? [String: Any])?["results"] as? [[String: Any]]
        #expect(removed?.map { $0["status"] as? String } == ["deleted", "deleted"])
        let reasons = try await pipeline.nextScores(2).compactMap { $0.payload(as: AssessmentWithdrawn.self) }.map(\.reason)
        #expect(Set(reasons) == [.npiDeleted, .profileWithdrawn])

        // What stands: the kept entry alone, in the history, the assessments and the chart's series.
        let history = try await HTTP.get(scoring + "/v1/patients/p-del/npi").items()
        #expect(history.map { $0["npiId"] as? String } == [kept])
        // One entry alone, as data and as its own page with every detail and its curve; the deleted one is gone.
        let one = try #require(try await HTTP.get(scoring + "/v1/patients/p-del/npi/\(kept)").json() as? [String: Any])
        #expect(one["npiId"] as? String == kept && (one["inputs"] as? [String: Any])?["tumourSizeCm"] as? Double == 1.5)
        #expect(try await HTTP.get(scoring + "/v1/patients/p-del/npi/\(deleted)").status == 404)
        let page = try await HTTP.get(scoring + "/v1/patients/p-del/npi/\(kept)/report")
        #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("diagnosis of 2026-10-01") && page.text.contains("1.5 cm") && page.text.contains("chart-npi-entry"))
        #expect(try await HTTP.get(scoring + "/v1/patients/p-del/npi/\(deleted)/report").status == 404)
        #expect(try await HTTP.get(scoring + "/v1/patients/p-del/npi/\(kept)/report", as: stranger).status == 403)
        #expect(try await HTTP.get(scoring + "/v1/patients/p-del/melanoma-risk").items().isEmpty)
        let series = try #require(try await HTTP.get(scoring + "/v1/patients/p-del/series/nottinghamPrognosticIndex").json() as? [String: Any])
        #expect((series["points"] as? [Any])?.count == 1)
        try await pipeline.stop()
    }

    @Test("a patient reads exam reports only as released, from ingest: scoring lists their assessments to the care team, not to the patient")
    func examAssessmentsNotToPatient() async throws {
        let pipeline = try await Pipeline.start()
        #expect(
            try await HTTP.send(
                method: "PUT", pipeline.ingest + "/v1/institutions/st-mary/release-rules",
                json: #"{"rules": [{"testCode": "*", "release": "hold", "reason": "discuss with the patient first"}]}"#
            ).status == 200)
        #expect(
            try await HTTP.send(
                method: "PUT", pipeline.ingest + "/v1/institutions/st-mary/exam-results/HELD-1",
                json:
                    #"{"patientId": "p-held", "reportedAt": "2026-11-22T06:10:00Z", "items": [{"code": "2345-7", "name": "Glucose", "value": 182, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99}]}"#
            ).status == 201)
        _ = try await pipeline.nextScores(1)
        let scoring = pipeline.stack.baseURL(ScoringService.name) + "/v1/patients/p-held/assessments"
        #expect(try await HTTP.get(scoring).items().isEmpty)
        #expect(try await HTTP.get(pipeline.ingest + "/v1/patients/p-held/exam-results").items().isEmpty)
        // The patient's consultant sees the held report's assessment.
        let consultant = Caller.identity(.init(subject: "dr-held", role: .consultant))
        #expect(try await HTTP.send(method: "PUT", pipeline.ingest + "/v1/patients/p-held/care-team/dr-held", json: "{}").status == 200)
        try await eventually("scoring applied the grant") { try await HTTP.get(scoring, as: consultant).status == 200 }
        #expect(try await HTTP.get(scoring, as: consultant).items().map { $0["kind"] as? String } == ["examResult"])
        try await pipeline.stop()
    }

    @Test("caretide rescore reports the patients whose category changes under the current rules, and --apply supersedes")
    func rescore() async throws {
        let pipeline = try await Pipeline.start()
        #expect(
            try await pipeline.send(
                "POST", "/v1/patients/p-rescore/measurements/blood-pressure",
                #"{"measurementId": "\#(UUID())", "systolic": 182, "diastolic": 90, "takenAt": "2026-11-20T08:00:00Z"}"#
            ).status == 201)
        let original = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        _ = try await pipeline.nextAlerts(1)
        // As if an earlier rule set had called this reading normal.
        _ = try await pipeline.stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.query(
                "UPDATE assessments SET category = 'normal', severity = 'normal', rule_set_version = '2025.01.0' WHERE assessment_id = \(original.assessmentID)",
                logger: logger)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = pipeline.stack.database.url
        let executable = Paths.executable("caretide").path
        // A command that never exits fails the test by name rather than holding the run.
        let caretide = { @Sendable [environment] (arguments: [String]) async throws -> Subprocess.Result in
            try await bounded(within: .seconds(120), waitingFor: { "caretide \(arguments.joined(separator: " ")) to exit" }) {
                try await Subprocess.run(executable, arguments, environment: environment)
            }
        }

        let dryRun = try await caretide(["rescore", "--since", "2020-01-01", "--json"])
        #expect(dryRun.status == 0, "\(dryRun.output)")
        // Standard error (logs) shares the captured output; the report is the one JSON line.
        let line = try #require(dryRun.output.split(separator: "\n").first { $0.hasPrefix("{") })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let changes = report["changed"] as? [[String: Any]] ?? []
        #expect(changes.count == 1)
        #expect(changes.first?["patientId"] as? String == "p-rescore")
        #expect(changes.first?["fromCategory"] as? String == "normal")
        #expect(changes.first?["toCategory"] as? String == "hypertensiveCrisis")
        #expect(report["applied"] as? Bool == false)

        let applied = try await caretide(["rescore", "--since", "2020-01-01", "--apply"])
        #expect(applied.status == 0, "\(applied.output)")
        #expect(applied.output.contains("1 change(s) for 1 patient(s), applied"))
        let rescored = try #require(try await pipeline.nextScores(1)[0].payload(as: AssessmentRecorded.self))
        #expect(rescored.supersedes == original.assessmentID)
        #expect(rescored.sourceEventID == original.sourceEventID)
        #expect(rescored.category == .bloodPressure(.hypertensiveCrisis))

        let again = try await caretide(["rescore", "--since", "2020-01-01"])
        #expect(again.output.contains("0 change(s) for 0 patient(s)"))
        try await pipeline.stop()
    }
}
