import CaretideIdentity
import CaretideLocalStack
import CaretideSchemas
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// What apps draw: histories over a period, series thinned for a chart with each point's category, one exam test
/// across released reports, and the NPI answered at once.
@Suite(.serialized, .stoppingStacks) struct ViewsTests {
    static func bloodPressure(_ systolic: Int, _ diastolic: Int, at time: String) -> String {
        #"{"measurementId": "\#(UUID())", "systolic": \#(systolic), "diastolic": \#(diastolic), "takenAt": "\#(time)"}"#
    }

    @Test("histories and series honour from and to; a long series keeps its extremes; bad queries name their parameter")
    func seriesAndPeriods() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let scoring = stack.baseURL(ScoringService.name)
        let readings = "\(ingest)/v1/patients/p-chart/measurements/blood-pressure"

        // Thirty days of October, one reading a morning; one spike on the 17th and one low on the 23rd.
        for day in 1...30 {
            let (systolic, diastolic) = day == 17 ? (192, 118) : day == 23 ? (96, 61) : (118 + day % 5, 76 + day % 3)
            let time = String(format: "2026-10-%02dT07:30:00Z", day)
            #expect(try await HTTP.send(method: "POST", readings, json: Self.bloodPressure(systolic, diastolic, at: time)).status == 201)
        }
        #expect(
            try await HTTP.send(
                method: "POST", "\(ingest)/v1/patients/p-chart/measurements/pulse",
                json: #"{"measurementId": "\#(UUID())", "beatsPerMinute": 64, "takenAt": "2026-10-10T07:35:00Z"}"#
            ).status == 201)

        // Measurements over a period, and of one kind.
        let week = try await HTTP.get("\(ingest)/v1/patients/p-chart/measurements?from=2026-10-08&to=2026-10-14").items()
        #expect(week.count == 8 && week.filter { $0["kind"] as? String == "pulse" }.count == 1)
        let pulses = try await HTTP.get("\(ingest)/v1/patients/p-chart/measurements?kind=pulse").items()
        #expect(pulses.count == 1)

        try await eventually("every reading assessed") {
            let series = try await HTTP.get("\(scoring)/v1/patients/p-chart/series/bloodPressure").json() as? [String: Any]
            return series?["count"] as? Int == 30
        }

        // The whole month drawn with 8 points: thinned per bucket, the spike and the low kept, each point with its category.
        let thinned = try #require(
            try await HTTP.get("\(scoring)/v1/patients/p-chart/series/bloodPressure?from=2026-10-01&to=2026-10-30&points=8").json() as? [String: Any])
        let points = try #require(thinned["points"] as? [[String: Any]])
        #expect(thinned["count"] as? Int == 30 && thinned["method"] as? String == "min-max")
        #expect(points.count <= 8 && (thinned["bucketSeconds"] as? Double ?? 0) > 0)
        let systolic = points.compactMap { ($0["values"] as? [String: Any])?["systolic"] as? Double }
        #expect(systolic.contains(192) && systolic.contains(96))
        #expect(points.first { ($0["values"] as? [String: Any])?["systolic"] as? Double == 192 }?["category"] as? String == "hypertensiveCrisis")
        #expect(thinned["from"] as? String == "2026-10-01T00:00:00.000Z" && thinned["to"] as? String == "2026-10-31T00:00:00.000Z")

        // A short period comes whole; the assessments history honours the same period.
        let days = try #require(
            try await HTTP.get("\(scoring)/v1/patients/p-chart/series/bloodPressure?from=2026-10-16T00:00:00Z&to=2026-10-18T00:00:00Z").json()
                as? [String: Any])
        #expect(days["method"] as? String == "all" && (days["points"] as? [Any])?.count == 2 && days["bucketSeconds"] == nil)
        let assessed = try await HTTP.get("\(scoring)/v1/patients/p-chart/assessments?from=2026-10-16&to=2026-10-17&kind=bloodPressure").items()
        #expect(assessed.count == 2)

        // Bad queries are named; an unknown kind is not found; another patient's series is refused.
        let bad = try await HTTP.get("\(scoring)/v1/patients/p-chart/series/bloodPressure?from=yesterday&points=1")
        #expect(bad.status == 400 && bad.text.contains("/from") && bad.text.contains("/points"))
        let backwards = try await HTTP.get("\(ingest)/v1/patients/p-chart/measurements?from=2026-10-20&to=2026-10-10")
        #expect(backwards.status == 400 && backwards.text.contains("must be after from"))
        #expect(try await HTTP.get("\(ingest)/v1/patients/p-chart/measurements?kind=weight").status == 400)
        #expect(try await HTTP.get("\(scoring)/v1/patients/p-chart/series/examResult").status == 404)
        let stranger = Caller.identity(Identity(subject: "p-other", role: .patient))
        #expect(try await HTTP.get("\(scoring)/v1/patients/p-chart/series/bloodPressure", as: stranger).status == 403)

        // The reference tables an app shows beside a value, to any caller.
        let npi = try #require(try await HTTP.get("\(scoring)/v1/reference-tables/npi", as: stranger).json() as? [String: Any])
        let groups = ((npi["measures"] as? [[String: Any]])?.first?["bands"] as? [[String: Any]])?.map { $0["category"] as? String }
        #expect(groups == ["excellent", "good", "moderate", "poor"] && npi["ruleSetVersion"] as? String != nil)
        #expect(try await HTTP.get("\(scoring)/v1/reference-tables", as: stranger).items().count == 9)
        #expect(try await HTTP.get("\(scoring)/v1/reference-tables/bmi").status == 404)
        // The melanoma score's categories and weights, and what a photo must be, with their sources.
        let melanoma = try #require(try await HTTP.get("\(scoring)/v1/reference-tables/melanoma-risk", as: stranger).json() as? [String: Any])
        let categories = (melanoma["categories"] as? [[String: Any]])?.map { [$0["category"] as? String, "\($0["fromScore"] ?? "")"] }
        #expect(categories == [["lower", "0"], ["medium", "2"], ["higher", "5"]])
        let weights = melanoma["weights"] as? [[String: Any]] ?? []
        #expect(weights.count > 20 && weights.allSatisfy { ($0["source"] as? String)?.isEmpty == false })
        let checks = try #require(try await HTTP.get("\(ingest)/v1/photo-checks", as: stranger).json() as? [String: Any])
        #expect(checks["minimumSide"] as? Int == 299 && (checks["formats"] as? [String])?.contains("heif") == true)
        #expect((checks["sources"] as? [String: String])?["minimumSharpness"]?.contains("Pech-Pacheco") == true)
        try await stack.shutdown()
    }

    @Test("one exam test across every released report, with its range and flag; a held report is not in it")
    func examSeries() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let exams = "\(ingest)/v1/institutions/st-mary/exam-results"
        func report(_ value: Double, _ reportedAt: String, extra: String = "") -> String {
            #"{"patientId": "p-lab", "reportedAt": "\#(reportedAt)", "items": [{"code": "2345-7", "name": "Glucose", "value": \#(value), "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99}\#(extra)]}"#
        }
        let creatinine = #", {"code": "2160-0", "name": "Creatinine", "value": 0.9, "unit": "mg/dL", "referenceLow": 0.6, "referenceHigh": 1.2}"#
        #expect(try await HTTP.send(method: "PUT", "\(exams)/E1", json: report(92, "2026-09-01T08:00:00Z", extra: creatinine)).status == 201)
        #expect(try await HTTP.send(method: "PUT", "\(exams)/E2", json: report(131, "2026-10-01T08:00:00Z")).status == 201)
        // From now on abnormal glucose waits for a clinician: E3 is held.
        let rules = #"{"rules": [{"testCode": "2345-7", "abnormalOnly": true, "release": "hold", "reason": "discussed first"}]}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/institutions/st-mary/release-rules", json: rules).status == 200)
        #expect(try await HTTP.send(method: "PUT", "\(exams)/E3", json: report(240, "2026-11-01T08:00:00Z")).status == 201)

        let series = try #require(try await HTTP.get("\(ingest)/v1/patients/p-lab/exam-results/series/2345-7").json() as? [String: Any])
        let points = try #require(series["points"] as? [[String: Any]])
        #expect(points.map { $0["examId"] as? String } == ["E1", "E2"])
        let items = points.compactMap { $0["item"] as? [String: Any] }
        #expect(items.map { $0["flag"] as? String } == ["N", "H"] && items.allSatisfy { $0["referenceHigh"] as? Double == 99 })
        let autumn = try await HTTP.get("\(ingest)/v1/patients/p-lab/exam-results/series/2345-7?from=2026-09-15").json() as? [String: Any]
        #expect((autumn?["points"] as? [[String: Any]])?.map { $0["examId"] as? String } == ["E2"])
        let other = try await HTTP.get("\(ingest)/v1/patients/p-lab/exam-results/series/2160-0").json() as? [String: Any]
        #expect(other?["count"] as? Int == 1)
        // The released reports honour a period too.
        #expect(try await HTTP.get("\(ingest)/v1/patients/p-lab/exam-results?to=2026-09-30").items().map { $0["examId"] as? String } == ["E1"])
        #expect(try await HTTP.get("\(ingest)/v1/patients/p-lab/exam-results/series/a%20b").status == 400)
        try await stack.shutdown()
    }

    @Test("recording NPI inputs answers the NPI, its group and survival; the calculator answers the same and stores nothing")
    func npiAnsweredAtOnce() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        // 0.2 × 3.0 + 3 + 3 = 6.6: poor, 50 % at five years.
        let inputs = #"{"tumourSizeCm": 3.0, "histologicalGrade": 3, "positiveNodes": 4, "diagnosisDate": "2026-11-01T00:00:00Z"}"#
        let recorded = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-npi/npi/\(UUID())", json: inputs)
        #expect(recorded.status == 201)
        let answer = try #require(try recorded.json() as? [String: Any])
        let assessment = try #require(answer["assessment"] as? [String: Any])
        #expect(answer["status"] as? String == "recorded" && answer["revision"] as? Int == 1)
        #expect(assessment["category"] as? String == "poor" && (assessment["values"] as? [String: Any])?["npi"] as? Double == 6.6)
        #expect((assessment["values"] as? [String: Any])?["fiveYearSurvivalPercent"] as? Double == 50)
        #expect((assessment["survivalCurve"] as? [[String: Any]])?.last?["survivalProbability"] as? Double == 0.5)

        let patient = Caller.identity(Identity(subject: "p-calc", role: .patient))
        let calculated = try await HTTP.send(method: "POST", "\(ingest)/v1/npi/calculate", json: inputs, as: patient)
        #expect(calculated.status == 200)
        let same = try #require(try calculated.json() as? [String: Any])
        #expect(same["category"] as? String == assessment["category"] as? String)
        #expect((same["values"] as? [String: Any])?["npi"] as? Double == 6.6)
        let refused = try await HTTP.send(
            method: "POST", "\(ingest)/v1/npi/calculate",
            json: #"{"tumourSizeCm": 3.0, "histologicalGrade": 3, "diagnosisDate": "2026-11-01T00:00:00Z"}"#,
            as: patient)
        #expect(refused.status == 422 && refused.text.contains("/lymphNodeStage"))
        #expect(
            try await HTTP.send(
                method: "POST", "\(ingest)/v1/melanoma-risk/calculate",
                json:
                    #"{"age": 30, "sex": "male", "fitzpatrickSkinType": 4, "eyeColour": "brownOrBlack", "hairColour": "darkBrownOrBlack", "commonMoles": "upTo15", "atypicalMoleCount": 0, "freckling": "noneOrFew", "familyHistory": "none", "personalHistory": "none", "immunosuppression": [], "sunburnHistory": false}"#,
                as: patient
            ).status == 200)
        // Nothing was stored for the calculating patient.
        let changes = try await HTTP.get("\(ingest)/v1/patients/p-calc/changes", as: patient).json() as? [String: Any]
        #expect((changes?["changes"] as? [Any])?.isEmpty == true)
        try await stack.shutdown()
    }

    @Test("an area's latest UV and air quality with categories and colours, their series, and the area nearest a point")
    func environment() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let operatorCaller = Caller.identity(Identity(subject: "op-1", role: .operator))
        func feed(_ method: String, _ path: String, _ json: String) async throws -> Int {
            try await HTTP.send(method: method, ingest + path, json: json, as: operatorCaller).status
        }
        #expect(
            try await feed("PUT", "/v1/areas/lisbon", #"{"name": "Lisbon", "latitude": 38.72, "longitude": -9.14, "timeZone": "Europe/Lisbon"}"#)
                == 201)
        #expect(
            try await feed("PUT", "/v1/areas/porto", #"{"name": "Porto", "latitude": 41.15, "longitude": -8.61, "timeZone": "Europe/Lisbon"}"#) == 201
        )
        for (hour, index) in [(9, 3.1), (11, 7.4), (13, 9.6), (15, 6.0)] {
            let json = #"{"observedAt": "2026-07-01T\#(String(format: "%02d", hour)):00:00Z", "uvIndex": \#(index), "dailyMax": 9.8, "ozone": 318}"#
            #expect(try await feed("POST", "/v1/areas/lisbon/uv-index", json) == 201)
        }
        #expect(try await feed("POST", "/v1/areas/lisbon/air-quality", #"{"observedAt": "2026-07-01T12:00:00Z", "pm25": 40.0}"#) == 201)

        // A patient reads the latest of each: band, colour, ozone; solar noon computed from the longitude when not sent.
        let patient = Caller.identity(Identity(subject: "p-env", role: .patient))
        let latest = try #require(try await HTTP.get("\(ingest)/v1/areas/lisbon/environment", as: patient).json() as? [String: Any])
        let uv = try #require(latest["uvIndex"] as? [String: Any])
        #expect(uv["uvIndex"] as? Double == 6.0 && uv["category"] as? String == "high" && uv["colour"] as? String == "orange")
        #expect(uv["ozone"] as? Double == 318 && uv["dailyMax"] as? Double == 9.8)
        // The day's maximum has its own band: 9.8 is very high, though the latest reading is high.
        #expect(uv["dailyMaxCategory"] as? String == "veryHigh" && uv["dailyMaxColour"] as? String == "red")
        let noon = try #require((uv["solarNoon"] as? String).flatMap(Timestamp.parse))
        #expect(abs(noon.timeIntervalSince(Timestamp.parse("2026-07-01T12:40:00Z")!)) < 10 * 60)
        let air = try #require(latest["airQuality"] as? [String: Any])
        // PM2.5 40.0 µg/m³ is AQI 112 (EPA breakpoints 35.5–55.4 → 101–150).
        #expect(
            air["aqi"] as? Int == 112 && air["category"] as? String == "unhealthyForSensitiveGroups" && air["dominantPollutant"] as? String == "pm25")
        #expect(air["colour"] as? String == "#FF7E00")
        let porto = try #require(try await HTTP.get("\(ingest)/v1/areas/porto/environment", as: patient).json() as? [String: Any])
        #expect(porto["uvIndex"] is NSNull || porto["uvIndex"] == nil)

        // The day's series, and a window of it.
        let day = try #require(try await HTTP.get("\(ingest)/v1/areas/lisbon/uv-index?from=2026-07-01", as: patient).json() as? [String: Any])
        #expect((day["points"] as? [[String: Any]])?.map { $0["uvIndex"] as? Double } == [3.1, 7.4, 9.6, 6.0])
        let midday = try await HTTP.get("\(ingest)/v1/areas/lisbon/uv-index?from=2026-07-01T10:00:00Z&to=2026-07-01T14:00:00Z", as: patient).json()
        #expect(((midday as? [String: Any])?["points"] as? [Any])?.count == 2)
        #expect(try await HTTP.get("\(ingest)/v1/areas/lisbon/air-quality", as: patient).json() as? [String: Any] != nil)

        // From the phone's location: Braga is nearer Porto (about 50 km) than Lisbon.
        let nearest = try #require(
            try await HTTP.get("\(ingest)/v1/areas/nearest?latitude=41.55&longitude=-8.42", as: patient).json() as? [String: Any])
        #expect((nearest["area"] as? [String: Any])?["areaCode"] as? String == "porto")
        #expect((45...50).contains(nearest["distanceKm"] as? Double ?? 0))
        let badPoint = try await HTTP.get("\(ingest)/v1/areas/nearest?latitude=91", as: patient)
        #expect(badPoint.status == 400 && badPoint.text.contains("/latitude") && badPoint.text.contains("/longitude"))
        #expect(try await HTTP.get("\(ingest)/v1/areas/faro/environment", as: patient).status == 404)
        #expect(try await feed("POST", "/v1/areas/lisbon/uv-index", #"{"observedAt": "2026-07-01T16:00:00Z", "uvIndex": 4, "ozone": 5}"#) == 400)
        try await stack.shutdown()
    }

    @Test("the report shows the UV and air-quality history of the areas the patient follows, and stops when they leave one")
    func reportEnvironment() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition, NotificationService.definition])
        let (ingest, scoring, notification) = (
            stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name), stack.baseURL(NotificationService.name)
        )
        let operatorCaller = Caller.identity(Identity(subject: "ops-env", role: .operator))
        let area = #"{"name": "Lisbon", "latitude": 38.72, "longitude": -9.14, "timeZone": "Europe/Lisbon"}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/areas/lisbon", json: area, as: operatorCaller).status == 201)
        let subscription = "\(notification)/v1/patients/p-env/environment-subscriptions/lisbon"
        try await eventually("notification knows the area") {
            try await HTTP.send(method: "PUT", subscription, json: "{}").status == 200
        }
        // Two October days in Lisbon: a high UV day with unhealthy air, and a low one. 23:30 UTC on the 6th is already
        // the 7th in Lisbon (UTC+1 in October), so it counts for the 7th.
        for (path, body) in [
            ("uv-index", #"{"observedAt": "2026-10-06T11:00:00Z", "uvIndex": 5.1}"#),
            ("uv-index", #"{"observedAt": "2026-10-06T13:00:00Z", "uvIndex": 7.2}"#),
            ("uv-index", #"{"observedAt": "2026-10-06T23:30:00Z", "uvIndex": 2.4}"#),
            ("air-quality", #"{"observedAt": "2026-10-06T12:00:00Z", "aqi": 160}"#),
            ("air-quality", #"{"observedAt": "2026-10-07T12:00:00Z", "pm25": 5.0}"#),
        ] {
            #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/areas/lisbon/\(path)", json: body, as: operatorCaller).status == 201)
        }
        let report = "\(scoring)/v1/patients/p-env/report?from=2026-10-01&to=2026-10-31"
        // All five readings: the UV ones alone already make two days, and the air-quality ones come after them.
        try await eventually("the readings and the subscription reach scoring") {
            let page = try await HTTP.get(report).text
            return page.contains("Days with readings: 2.") && page.contains("(US AQI): 160")
        }
        let html = try await HTTP.get(report).text
        #expect(html.contains("<h2>UV index and air quality: Lisbon</h2>"))
        #expect(html.contains("Highest UV index: 7.2 (High)") && html.contains("Highest air quality index (US AQI): 160 (Unhealthy)"))
        #expect(html.contains("Daily maximum UV index") && html.contains("Daily maximum air quality index (US AQI)"))
        // Leaving the area takes it out of the report.
        #expect(try await HTTP.send(method: "DELETE", subscription).status == 204)
        try await eventually("the change reaches scoring") {
            try await !HTTP.get(report).text.contains("UV index and air quality: Lisbon")
        }
        try await stack.shutdown()
    }
}
