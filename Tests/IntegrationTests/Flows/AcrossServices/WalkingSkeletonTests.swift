import CaretideDomain
import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// One blood-pressure reading through the whole pipeline, against a real PostgreSQL and the embedded broker:
/// ingest stores and publishes it, scoring classifies it, notification stores an alert and publishes it.
@Suite(.serialized, .stoppingStacks) struct WalkingSkeletonTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition]

    @Test("an abnormal reading becomes an assessment, an inbox alert and an alert event")
    func abnormalReadingRaisesAlert() async throws {
        let stack = try await TestStack.start(Self.services)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let measurementID = UUID()
        let reply = try await HTTP.post(
            stack.baseURL(IngestService.name) + "/v1/patients/patient-7/measurements/blood-pressure",
            json: #"{"measurementId": "\#(measurementID)", "systolic": 182, "diastolic": 95, "takenAt": "2026-11-21T07:55:00Z"}"#)
        #expect(reply.status == 201)

        let messages = try await alerts.receive(1)
        let alert = try EventCodec().decode(messages[0].value)
        #expect(messages[0].key == "patient-7")
        #expect(messages[0].headers[EventHeader.eventType] == "alert.raised")
        let payload = try #require(alert.payload(as: AlertRaised.self))
        #expect(payload.severity == .urgent)
        #expect(payload.category == "hypertensiveCrisis")
        #expect(alert.patientID == "patient-7")

        let inbox = try await HTTP.get(stack.baseURL(NotificationService.name) + "/v1/patients/patient-7/alerts")
        let items = try inbox.items()
        #expect(items.count == 1)
        #expect(items.first?["category"] as? String == "hypertensiveCrisis")

        let assessments = try await HTTP.get(stack.baseURL(ScoringService.name) + "/v1/patients/patient-7/assessments")
        let rows = try assessments.items()
        #expect(rows.map { $0["subjectId"] as? String } == [measurementID.uuidString.lowercased()])
        #expect(rows.first?["ruleSetVersion"] as? String == "2026.11.4")
        // The services count what they did; /metrics exposes it in Prometheus text format.
        let metrics = try await HTTP.get(stack.baseURL(ScoringService.name) + "/metrics").text
        #expect(metrics.contains(#"caretide_events_consumed_total{topic="caretide.measurements"} 1"#))
        #expect(metrics.contains(#"caretide_event_processing_seconds_count{topic="caretide.measurements"} 1"#))
        try await eventually("scoring counts its published assessment") {
            try await HTTP.get(stack.baseURL(ScoringService.name) + "/metrics").text.contains(
                #"caretide_events_produced_total{topic="caretide.scores"} 1"#)
        }
        // Everything was published: no outbox is left holding events.
        for schema in ["ingest", "scoring", "notification"] {
            try await eventually("\(schema) outbox drained") {
                try await stack.withDatabase(schema: schema) { database, logger in try await Outbox.pendingCount(database, logger: logger) } == 0
            }
        }
        await alerts.close()
        try await stack.shutdown()
    }

    @Test("a normal reading is assessed but raises no alert")
    func normalReadingRaisesNoAlert() async throws {
        let stack = try await TestStack.start(Self.services)
        let scores = try KafkaProbe(stack.kafka, topic: Topic.scores.name)
        let reply = try await HTTP.post(
            stack.baseURL(IngestService.name) + "/v1/patients/patient-8/measurements/blood-pressure",
            json: #"{"measurementId": "\#(UUID())", "systolic": 112, "diastolic": 71, "takenAt": "2026-11-21T07:55:00Z"}"#)
        #expect(reply.status == 201)
        let assessed = try EventCodec().decode(try await scores.receive(1)[0].value)
        #expect(assessed.payload(as: AssessmentRecorded.self)?.category == .bloodPressure(.normal))
        // The notification service has processed it, yet the inbox stays empty; needing nothing of it, it claimed
        // nothing and opened no transaction for it.
        let notification = stack.baseURL(NotificationService.name)
        try await eventually("notification processed the assessment") {
            await HTTP.metric(notification, #"caretide_event_processing_seconds_count{topic="caretide.scores"}"#) ?? 0 >= 1
        }
        // Its offset committed with the batch, though no transaction recorded it.
        try await eventually("notification committed the assessment's offset") {
            await HTTP.metric(notification, #"caretide_consumer_lag{topic="caretide.scores"}"#) == 0
        }
        let inbox = try await HTTP.get(notification + "/v1/patients/patient-8/alerts")
        #expect(try inbox.items().isEmpty)
        let claimed = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM processed_events", as: Int.self, logger: logger).first
        }
        #expect(claimed == 0)
        await scores.close()
        try await stack.shutdown()
    }

    @Test("a re-sent reading (offline sync) is stored and published once")
    func resentReadingIsIdempotent() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let measurements = try KafkaProbe(stack.kafka, topic: Topic.measurements.name)
        let url = stack.baseURL(IngestService.name) + "/v1/patients/patient-9/measurements/blood-pressure"
        let body = #"{"measurementId": "\#(UUID())", "systolic": 135, "diastolic": 85, "takenAt": "2026-11-20T21:00:00+01:00", "source": "device"}"#
        let first = try await HTTP.post(url, json: body)
        let second = try await HTTP.post(url, json: body)
        #expect(first.status == 201)
        #expect(second.status == 200)
        #expect((try second.json() as? [String: Any])?["status"] as? String == "duplicate")
        #expect((try first.json() as? [String: Any])?["eventId"] as? String == (try second.json() as? [String: Any])?["eventId"] as? String)
        #expect(try await measurements.receive(1).count == 1)
        #expect(try await measurements.drain(for: .seconds(2)).isEmpty)
        // The same measurement id for another patient is a conflict, not a silent overwrite.
        let other = try await HTTP.post(stack.baseURL(IngestService.name) + "/v1/patients/patient-10/measurements/blood-pressure", json: body)
        #expect(other.status == 409)
        await measurements.close()
        try await stack.shutdown()
    }

    @Test("a bad request body gets one 400 naming every failing field by JSON Pointer")
    func badRequestNamesEveryField() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/patients/patient-1/measurements/blood-pressure"
        let invalid = try await HTTP.post(url, json: #"{"systolic": "high", "diastolic": 500, "takenAt": "yesterday", "note": "x"}"#)
        #expect(invalid.status == 400)
        let body = try #require(try invalid.json() as? [String: Any])
        let pointers = (body["violations"] as? [[String: Any]])?.compactMap { $0["pointer"] as? String }
        // The unknown member is named by its object, never echoed.
        #expect(pointers == ["", "/diastolic", "/measurementId", "/systolic", "/takenAt"])

        let malformed = try await HTTP.post(url, json: #"{"systolic": 120,"#)
        #expect(malformed.status == 400)
        #expect(malformed.text.contains("malformed JSON"))

        let badPatient = try await HTTP.post(stack.baseURL(IngestService.name) + "/v1/patients/%20bad/measurements/blood-pressure", json: "{}")
        #expect(badPatient.status == 400)
        #expect(badPatient.text.contains("/patientId"))

        let stored = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM records", as: Int.self, logger: logger).first
        }
        #expect(stored == 0)
        try await stack.shutdown()
    }
}
