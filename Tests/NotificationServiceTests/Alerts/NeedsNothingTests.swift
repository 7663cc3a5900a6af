import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// Which consumed events notification-service needs nothing of (`NotificationHandler.needsNothing`): those its
/// consumer neither claims nor opens a transaction for. Everything `apply` acts on must be needed.
@Suite struct NeedsNothingTests {
    let handler = NotificationHandler(escalationDelay: .seconds(3600), clock: .system)
    let at = Date(timeIntervalSince1970: 1_795_000_000)

    func event<P: EventPayload>(_ payload: P) throws -> ValidatedEvent {
        try EventCodec().decode(try EventCodec().encode(EventEnvelope(producer: "test", patientID: "p-1", traceID: "t-1", payload: payload)))
    }

    func assessment(_ category: AssessmentCategory, _ severity: Severity, supersedes: UUID? = nil) -> AssessmentRecorded {
        AssessmentRecorded(
            assessmentID: UUID(), sourceEventID: UUID(), subjectID: UUID().uuidString.lowercased(), category: category, severity: severity,
            tip: "tip", ruleSetVersion: "2026.11.1", observedAt: at, supersedes: supersedes, values: [:])
    }

    @Test("a normal reading's assessment, a normal exam flag and a report not yet released need nothing")
    func nothingNeeded() throws {
        #expect(handler.needsNothing(try event(assessment(.bloodPressure(.normal), .normal))))
        let glucose = ExamResultLine(code: "2345-7", name: "Glucose", value: 99, unit: "mg/dL", referenceLow: 70, referenceHigh: 99, comment: nil)
        let report = ExamResultRecorded(examID: "LAB-7", institutionID: "st-mary", revision: 1, reportedAt: at, items: [glucose])
        #expect(handler.needsNothing(try event(report)))
        #expect(handler.needsNothing(try event(flagged(.normal))))
    }

    func flagged(_ severity: Severity, supersedes: UUID? = nil) -> ExamResultFlagged {
        let line = FlaggedExamLine(code: "2345-7", name: "Glucose", value: 99, unit: "mg/dL", interpretation: .N, severity: severity, comment: nil)
        return ExamResultFlagged(
            assessmentID: UUID(), sourceEventID: UUID(), examID: "LAB-7", institutionID: "st-mary", revision: 1, reportedAt: at, severity: severity,
            supersedes: supersedes, ruleSetVersion: "2026.11.1", items: [line])
    }

    @Test("an assessment or exam flag that notifies or replaces another, a melanoma risk and a photo's answer are needed")
    func needed() throws {
        #expect(!handler.needsNothing(try event(assessment(.bloodPressure(.stage1Hypertension), .attention))))
        #expect(!handler.needsNothing(try event(assessment(.bloodPressure(.hypertensiveCrisis), .urgent))))
        #expect(!handler.needsNothing(try event(assessment(.bloodPressure(.normal), .normal, supersedes: UUID()))))
        #expect(!handler.needsNothing(try event(assessment(.melanomaRisk(.lower), .normal))))
        #expect(!handler.needsNothing(try event(assessment(.lesionPhoto(.notSuspicious), .normal))))
        #expect(!handler.needsNothing(try event(flagged(.attention))))
        #expect(!handler.needsNothing(try event(flagged(.normal, supersedes: UUID()))))
    }

    @Test("an event notification-service does not consume is needed, so that its refusal is reported")
    func refusalsReported() throws {
        #expect(
            !handler.needsNothing(
                try event(BloodPressureRecorded(measurementID: UUID(), systolic: 128, diastolic: 79, takenAt: at, source: .device))))
    }
}
