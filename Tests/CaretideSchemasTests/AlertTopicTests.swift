import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

/// Every alert's kind, category and message key come from its `AlertTopic`; these are the words consumers of
/// `caretide.alerts` and the inbox's texts (`InboxWords`) already know, so none may change by accident.
@Suite struct AlertTopicTests {
    static let topics: [AlertTopic] =
        AssessmentCategoryTests.all.map(AlertTopic.assessment) + CareTrackingFlagKind.allCases.map(AlertTopic.careTracking) + [
            .examResultReady(revised: false), .examResultReady(revised: true), .uvIndex(nil), .airQuality(nil),
            .reminder(topic: "skinCheck"), .broadcast(kind: "outage"), .escalation(kind: "bloodPressure", category: "hypertensiveCrisis"),
            .message(fromConsultant: true), .message(fromConsultant: false), .advice, .reportShared, .examResultDisputed,
        ] + UVIndexCategory.allCases.map(AlertTopic.uvIndex) + AirQualityCategory.allCases.map(AlertTopic.airQuality)
        + AlertTopic.AppointmentChange.allCases.map(AlertTopic.appointment)
        + AlertTopic.LesionFollowUpNotice.allCases.map(AlertTopic.lesionFollowUp)

    @Test("each topic's words are the ones the alerts have always carried")
    func words() {
        let expected: [(AlertTopic, String, String, String)] = [
            (.assessment(.bloodPressure(.hypertensiveCrisis)), "bloodPressure", "hypertensiveCrisis", "alert.bloodPressure.hypertensiveCrisis"),
            (.careTracking(.risingFastingGlucose), "careTracking", "risingFastingGlucose", "alert.careTracking.risingFastingGlucose"),
            (.examResultReady(revised: false), "examResultReady", "released", "alert.examResultReady.released"),
            (.examResultReady(revised: true), "examResultReady", "revised", "alert.examResultReady.revised"),
            (.uvIndex(.veryHigh), "uvIndex", "veryHigh", "alert.uvIndex.veryHigh"),
            (.uvIndex(nil), "uvIndex", "allClear", "alert.uvIndex.allClear"),
            (.airQuality(.hazardous), "airQuality", "hazardous", "alert.airQuality.hazardous"),
            (.airQuality(nil), "airQuality", "allClear", "alert.airQuality.allClear"),
            (.reminder(topic: "skinCheck"), "reminder", "skinCheck", "alert.reminder.skinCheck"),
            (.broadcast(kind: "outage"), "broadcast", "outage", "alert.broadcast.outage"),
            (
                .escalation(kind: "bloodPressure", category: "hypertensiveCrisis"), "escalation", "hypertensiveCrisis",
                "alert.escalation.bloodPressure"
            ),
            (.message(fromConsultant: true), "message", "fromConsultant", "alert.message.received"),
            (.message(fromConsultant: false), "message", "fromPatient", "alert.message.received"),
            (.appointment(.booked), "appointment", "booked", "alert.appointment.booked"),
            (.appointment(.cancelled), "appointment", "cancelled", "alert.appointment.cancelled"),
            (.advice, "advice", "fromConsultant", "alert.advice.fromConsultant"),
            (.reportShared, "reportShared", "report", "alert.reportShared"),
            (.lesionFollowUp(.checkUpOverdue), "lesionFollowUp", "checkUpOverdue", "alert.lesionFollowUp.checkUpOverdue"),
            (.examResultDisputed, "examResultDisputed", "notMine", "alert.examResultDisputed.notMine"),
        ]
        for (topic, kind, category, messageKey) in expected {
            #expect(topic.kind == kind && topic.category == category && topic.messageKey == messageKey, "\(topic)")
        }
    }

    @Test("every topic's kind is one of AlertTopic.kinds, and the alert schema's kind enumerates exactly those")
    func schemaEnumeratesTheKinds() throws {
        #expect(Set(Self.topics.map(\.kind)) == Set(AlertTopic.kinds))
        let schema = try SchemaContractTests.loadDocument(EventType.alertRaised.schemaPath)
        let listed = (schema["properties"]?["kind"]?["enum"]?.elements ?? []).compactMap(\.stringValue)
        #expect(listed == AlertTopic.kinds, "the schema's kind should be \(AlertTopic.kinds)")
    }

    @Test("an alert built from a topic validates against the alert schema, whatever the topic")
    func alertsValidate() throws {
        let catalog = try SchemaCatalog(directory: SchemaContractTests.schemasDirectory)
        for topic in Self.topics {
            let alert = AlertRaised(
                alertID: UUID(), topic: topic, severity: .attention, sourceEventID: UUID(), aboutID: UUID(), raisedAt: Date(),
                recipientID: "patient-1", recipientRole: .patient)
            let document = try CaretideJSON.parse(
                try EventCodec(catalog: catalog).encode(EventEnvelope(producer: "test", patientID: "patient-1", traceID: nil, payload: alert)))
            #expect(catalog.payloads[.alertRaised]!.validate(document["payload"]!) == [], "\(topic)")
        }
    }
}
