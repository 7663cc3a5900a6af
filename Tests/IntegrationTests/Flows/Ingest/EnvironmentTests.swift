import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import Testing

/// Operators' environmental feeds: areas first, then UV index and air-quality readings, each an event keyed by area.
@Suite(.serialized, .stoppingStacks) struct EnvironmentTests {
    static let operatorCaller = Caller.identity(Identity(subject: "op-1", role: .operator))

    static func send(_ method: String, _ url: String, _ json: String, as caller: Caller = operatorCaller) async throws -> HTTP.Reply {
        try await HTTP.send(method: method, url, json: json, as: caller)
    }

    @Test("areas are registered first; readings of them are recorded once and announced keyed by area; bad readings name their fields")
    func feeds() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let probe = try KafkaProbe(stack.kafka, topic: Topic.environment.name)
        let base = stack.baseURL(IngestService.name)
        let area = #"{"name": "Lisbon", "latitude": 38.72, "longitude": -9.14, "timeZone": "Europe/Lisbon"}"#

        // A reading before its area is registered is refused.
        let early = try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", #"{"observedAt": "2026-07-01T11:00:00Z", "uvIndex": 8.2}"#)
        #expect(early.status == 404 && early.text.contains("/areaCode"))

        #expect(try await Self.send("PUT", "\(base)/v1/areas/lisbon", area).status == 201)
        #expect(try await Self.send("PUT", "\(base)/v1/areas/lisbon", area).text.contains(#""status":"unchanged""#))
        let moved = try await Self.send("PUT", "\(base)/v1/areas/lisbon", area.replacingOccurrences(of: "38.72", with: "38.7"))
        #expect(moved.status == 200 && moved.text.contains(#""status":"updated""#))
        let badZone = try await Self.send("PUT", "\(base)/v1/areas/porto", area.replacingOccurrences(of: "Europe/Lisbon", with: "Mars/Olympus"))
        #expect(badZone.status == 422 && badZone.text.contains("/timeZone"))

        let uv = #"{"observedAt": "2026-07-01T11:00:00Z", "uvIndex": 8.2, "dailyMax": 9.1, "solarNoon": "2026-07-01T12:36:00Z"}"#
        #expect(try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", uv).status == 201)
        let again = try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", uv)
        #expect(again.status == 200 && again.text.contains(#""status":"duplicate""#))
        let contradictory = try await Self.send(
            "POST", "\(base)/v1/areas/lisbon/uv-index", #"{"observedAt": "2026-07-01T12:00:00Z", "uvIndex": 9, "dailyMax": 3}"#)
        #expect(contradictory.status == 422 && contradictory.text.contains("/dailyMax"))
        let future = try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", #"{"observedAt": "2099-07-01T12:00:00Z", "uvIndex": 3}"#)
        #expect(future.status == 422 && future.text.contains("/observedAt"))
        #expect(
            try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", #"{"observedAt": "2026-07-01T12:00:00Z", "uvIndex": 30}"#).status == 400)

        #expect(
            try await Self.send("POST", "\(base)/v1/areas/lisbon/air-quality", #"{"observedAt": "2026-07-01T11:00:00Z", "aqi": 57, "pm25": 14.2}"#)
                .status == 201)
        let empty = try await Self.send("POST", "\(base)/v1/areas/lisbon/air-quality", #"{"observedAt": "2026-07-01T12:00:00Z"}"#)
        #expect(empty.status == 422)
        #expect(["/aqi", "/pm25", "/pm10", "/o3"].allSatisfy { empty.text.contains($0) })

        // Two area events (registered, updated) and two readings, in order, keyed by area.
        let events = try await probe.receive(4)
        #expect(events.allSatisfy { $0.keyBytes.map { String(decoding: $0, as: UTF8.self) } == "lisbon" })
        let types = try events.map { try EventCodec().decode($0.valueBytes ?? []).eventType }
        #expect(types == [.areaRegistered, .areaRegistered, .uvIndexRecorded, .airQualityRecorded])
        await probe.close()

        // Who may: operators and environment gateways write; anyone authenticated reads the areas; patients cannot feed.
        let patient = Caller.identity(Identity(subject: "p-1", role: .patient))
        #expect(try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", uv, as: patient).status == 403)
        let gateway = Caller.identity(Identity(subject: "uv-feed", role: .service, scopes: [ServiceScope.environmentWrite]))
        #expect(
            try await Self.send("POST", "\(base)/v1/areas/lisbon/uv-index", uv.replacingOccurrences(of: "11:00", with: "13:00"), as: gateway).status
                == 201)
        let listed = try await HTTP.get("\(base)/v1/areas", as: patient)
        let areas = try listed.items()
        #expect(listed.status == 200 && areas.first?["areaCode"] as? String == "lisbon")
        try await stack.shutdown()
    }
}

/// UV and air-quality alerts: patients subscribe to an area with thresholds that follow from who they are, readings
/// alert each subscriber at their own threshold, a rise alerts again, a fall below sends one all-clear.
@Suite(.serialized, .stoppingStacks) struct EnvironmentAlertFlowTests {
    static func reading(_ url: String, _ json: String) async throws {
        let reply = try await EnvironmentTests.send("POST", url, json)
        #expect(reply.status == 201, "\(reply.text)")
    }

    @Test("each subscriber is alerted at their own threshold with category, advice key and solar noon; rises alert again; all-clear once")
    func alertsPerSubscriber() async throws {
        let stack = try await TestStack.start([IngestService.definition, NotificationService.definition])
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        #expect(
            try await EnvironmentTests.send(
                "PUT", "\(ingest)/v1/areas/lisbon",
                #"{"name": "Lisbon", "latitude": 38.72, "longitude": -9.14, "timeZone": "Europe/Lisbon"}"#
            ).status == 201)
        let subscriptions = notification + "/v1/patients/p-fair/environment-subscriptions"
        #expect(try await HTTP.send(method: "PUT", subscriptions + "/nowhere", json: "{}", as: .owner).status == 404)
        try await eventually("notification knows the area") {
            try await HTTP.send(method: "PUT", subscriptions + "/lisbon", json: #"{"fitzpatrickSkinType": 2, "conditions": ["asthma"]}"#).status
                == 200
        }
        let mine = try await HTTP.get(subscriptions).items()
        #expect(mine.first?["effectiveUVIndexThreshold"] as? Double == 3 && mine.first?["effectiveAQIThreshold"] as? Int == 51)
        #expect(try await HTTP.send(method: "PUT", notification + "/v1/patients/p-usual/environment-subscriptions/lisbon", json: "{}").status == 200)
        #expect(
            try await HTTP.send(method: "PUT", subscriptions + "/lisbon", json: "{}", as: .identity(Identity(subject: "p-usual", role: .patient)))
                .status == 403)

        let uv = "\(ingest)/v1/areas/lisbon/uv-index"
        try await Self.reading(uv, #"{"observedAt": "2026-07-01T09:00:00Z", "uvIndex": 4.2}"#)  // moderate: fair skin only
        try await Self.reading(uv, #"{"observedAt": "2026-07-01T10:00:00Z", "uvIndex": 7.1}"#)  // high: both (a rise for fair skin)
        try await Self.reading(uv, #"{"observedAt": "2026-07-01T11:00:00Z", "uvIndex": 6.5}"#)  // still high: nobody again
        try await Self.reading(uv, #"{"observedAt": "2026-07-01T18:00:00Z", "uvIndex": 2.0}"#)  // below both: one all-clear each
        let air = "\(ingest)/v1/areas/lisbon/air-quality"
        try await Self.reading(air, #"{"observedAt": "2026-07-01T12:00:00Z", "pm25": 20}"#)  // AQI 71, moderate: asthma only
        try await Self.reading(air, #"{"observedAt": "2026-07-01T13:00:00Z", "pm25": 260}"#)  // AQI 370, hazardous: both, urgent

        let raised = try await alerts.receive(8).compactMap { try EventCodec().decode($0.value) }
        func sent(_ patient: String) -> [String] {
            raised.filter { $0.patientID == patient }.compactMap { $0.payload(as: AlertRaised.self) }.map { "\($0.kind).\($0.category)" }
        }
        #expect(sent("p-fair") == ["uvIndex.moderate", "uvIndex.high", "uvIndex.allClear", "airQuality.moderate", "airQuality.hazardous"])
        #expect(sent("p-usual") == ["uvIndex.high", "uvIndex.allClear", "airQuality.hazardous"])
        #expect(try await alerts.drain(for: .seconds(2)).isEmpty)

        let inbox = try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-fair", role: .patient))).items()
        let hazardous = try #require(inbox.first { $0["category"] as? String == "hazardous" })
        #expect(hazardous["severity"] as? String == "urgent" && hazardous["value"] as? Double == 370 && hazardous["areaCode"] as? String == "lisbon")
        let high = try #require(inbox.first { $0["category"] as? String == "high" })
        // Solar noon in Lisbon (9.14° W) on 1 July: about 12:40 UTC.
        let peak = try #require((high["peakAt"] as? String).flatMap { Timestamp.parse($0) })
        #expect(abs(peak.timeIntervalSince(Timestamp.parse("2026-07-01T12:40:00Z")!)) < 5 * 60)
        #expect(high["messageKey"] as? String == "alert.uvIndex.high")

        #expect(try await HTTP.send(method: "DELETE", subscriptions + "/lisbon").status == 204)
        #expect(try await HTTP.get(subscriptions).items().isEmpty)
        await alerts.close()
        try await stack.shutdown()
    }
}
