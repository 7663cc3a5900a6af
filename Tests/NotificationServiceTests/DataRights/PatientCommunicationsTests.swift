import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// A patient's export from notification-service (`NotificationPatientData.communications`): a FHIR Communication per
/// message of their threads and per entry of their own inbox, built from the rows the export read.
@Suite struct PatientCommunicationsTests {
    static let thread: JSONValue = ["thread_id": "t-1", "patient_id": "p-1", "consultant_id": "dr-a", "subject": "Blood pressure readings"]
    static let fromPatient: JSONValue = [
        "message_id": "m-1", "thread_id": "t-1", "sender_role": "patient", "sender_id": "p-1", "text": "My readings are high",
        "sent_at": "2026-11-02T09:00:00Z", "read_at": .null,
    ]
    static let fromConsultant: JSONValue = [
        "message_id": "m-2", "thread_id": "t-1", "sender_role": "consultant", "sender_id": "dr-a", "text": "Please book a visit",
        "sent_at": "2026-11-02T10:00:00Z", "read_at": "2026-11-02T11:00:00Z",
    ]
    /// A message whose thread row the export did not read.
    static let stray: JSONValue = [
        "message_id": "m-3", "thread_id": "t-gone", "sender_role": "patient", "sender_id": "p-1", "text": "Hello", "sent_at": "2026-11-03T09:00:00Z",
    ]
    static let urgent: JSONValue = [
        "notification_id": "n-1", "recipient_role": "patient", "recipient_id": "p-1", "patient_id": "p-1", "kind": "bloodPressure",
        "severity": "urgent", "message_key": "alert.bloodPressure.hypertensiveCrisis", "created_at": "2026-11-02T09:00:01Z",
    ]
    /// What the patient's consultant was told about them: the consultant's, not the patient's.
    static let consultants: JSONValue = [
        "notification_id": "n-2", "recipient_role": "consultant", "recipient_id": "dr-a", "patient_id": "p-1", "kind": "bloodPressure",
        "severity": "urgent", "message_key": "alert.bloodPressure.hypertensiveCrisis", "created_at": "2026-11-02T09:00:01Z",
    ]
    static let reminder: JSONValue = [
        "notification_id": "n-3", "recipient_role": "patient", "recipient_id": "p-1", "patient_id": "p-1", "kind": "reminder",
        "severity": "normal", "message_key": "alert.reminder.skinCheck", "created_at": "2026-11-04T09:00:00Z",
    ]
    static let drA: JSONValue = ["identifier": ["system": "urn:caretide:consultant-id", "value": "dr-a"]]

    static func exported() -> [JSONValue] {
        NotificationPatientData.communications(
            patientID: "p-1",
            rows: [
                "care_threads": [thread], "care_messages": [fromPatient, fromConsultant, stray], "notifications": [urgent, consultants, reminder],
            ])
    }

    static func resource(_ id: String) -> JSONValue? {
        exported().first { $0["id"]?.stringValue == id }
    }

    @Test("one Communication per message, then one per entry of the patient's own inbox; their consultants' entries are not theirs")
    func whatIsExported() {
        let resources = Self.exported()
        #expect(resources.map { $0["id"]?.stringValue } == ["m-1", "m-2", "m-3", "n-1", "n-3"])
        #expect(resources.allSatisfy { $0["resourceType"] == "Communication" && $0["status"] == "completed" })
        #expect(resources.allSatisfy { $0["subject"] == FHIRExport.patientReference("p-1") })
    }

    @Test("a patient's message is from the patient to the thread's consultant, on the thread's subject, not yet received")
    func patientsMessage() {
        let message = Self.resource("m-1")
        #expect(message?["sender"] == FHIRExport.patientReference("p-1"))
        #expect(message?["recipient"] == .array([Self.drA]))
        #expect(message?["payload"] == .array([.object(["contentString": "My readings are high"])]))
        #expect(message?["topic"] == .object(["text": "Blood pressure readings"]))
        #expect(message?["sent"] == "2026-11-02T09:00:00Z")
        #expect(message?["received"] == nil)
    }

    @Test("a consultant's message is from the consultant to the patient, received when the patient read it")
    func consultantsMessage() {
        let message = Self.resource("m-2")
        #expect(message?["sender"] == Self.drA)
        #expect(message?["recipient"] == .array([FHIRExport.patientReference("p-1")]))
        #expect(message?["received"] == "2026-11-02T11:00:00Z")
    }

    @Test("a message whose thread was not read still exports, to an unknown consultant and without a topic")
    func strayMessage() {
        let message = Self.resource("m-3")
        let unknown: JSONValue = ["identifier": ["system": "urn:caretide:consultant-id", "value": "unknown"]]
        #expect(message?["recipient"] == .array([unknown]))
        #expect(message?["topic"] == nil)
    }

    @Test("an inbox entry carries its kind, its message key and when it was raised; only urgent ones are urgent")
    func inboxEntries() {
        let urgent = Self.resource("n-1")
        #expect(urgent?["priority"] == "urgent")
        #expect(urgent?["category"] == .array([.object(["text": "bloodPressure"])]))
        #expect(urgent?["payload"] == .array([.object(["contentString": "alert.bloodPressure.hypertensiveCrisis"])]))
        #expect(urgent?["recipient"] == .array([FHIRExport.patientReference("p-1")]))
        #expect(urgent?["sent"] == "2026-11-02T09:00:01Z")
        #expect(Self.resource("n-3")?["priority"] == "routine")
    }
}
