import CaretideRuntime
import CaretideSchemas

/// What notification-service holds about a patient (`PatientData`): threads with their messages, reminders and their
/// occurrences, inbox entries (theirs, and their consultants' about them), held and escalated alerts, environment
/// subscriptions, appointments, the doctor's address and report e-mails, preferences, message numbers, tips shown,
/// and their place in broadcasts.
/// - An erasure first announces withdrawn (`alert.withdrawn` with reason `patientErased` on `caretide.alerts` and to
///   the webhooks) what already left, after the patient's earlier webhook deliveries are dropped; then empties the
///   tables.
/// - An export makes a FHIR Communication of each message of a thread and of each entry of the patient's inbox.
enum NotificationPatientData {
    static let patientData = PatientData(
        first: { patientID, cause, context in
            try await Webhooks(context).dropDeliveries(about: patientID)
            try await NotificationDelivery.withdrawEverything(of: patientID, cause: cause, context: context)
        },
        tables: [
            PatientTable("care_messages", rows: "t.thread_id IN (SELECT thread_id FROM care_threads WHERE patient_id = $1)"),
            PatientTable("care_threads"),
            PatientTable("reminder_occurrences", rows: "t.reminder_id IN (SELECT reminder_id FROM reminders WHERE patient_id = $1)"),
            PatientTable("reminders"),
            PatientTable("notifications", rows: "t.patient_id = $1 OR (t.recipient_role = 'patient' AND t.recipient_id = $1)"),
            PatientTable("held_alerts"),
            PatientTable("escalations"),
            PatientTable("environment_alert_states"),
            PatientTable("environment_subscriptions"),
            PatientTable("appointments"),
            PatientTable("lesion_follow_up_findings"),
            PatientTable("lesion_follow_ups"),
            PatientTable("doctor_contacts"),
            PatientTable("report_emails"),
            PatientTable("recipient_preferences", rows: "t.recipient_role = 'patient' AND t.recipient_id = $1"),
            PatientTable("recipient_sequences", rows: "t.recipient_role = 'patient' AND t.recipient_id = $1"),
            PatientTable("tips_shown", rows: "t.recipient_role = 'patient' AND t.recipient_id = $1"),
        ],
        after: [
            "UPDATE broadcasts SET patient_ids = array_remove(patient_ids, $1) WHERE $1 = ANY(patient_ids)",
            // A completed broadcast of an earlier build may still hold the patient as its cursor; one delivering moves
            // past them with its next batch, and clears its cursor when it completes.
            "UPDATE broadcasts SET delivered_through = '' WHERE delivered_through = $1 AND completed_at IS NOT NULL",
        ],
        resources: communications)

    /// A Communication per message between the patient and a consultant, and per entry of the patient's own inbox.
    static func communications(patientID: String, rows: [String: [JSONValue]]) -> [JSONValue] {
        let patient = FHIRExport.patientReference(patientID)
        var subjects: [String: JSONValue] = [:]
        var consultants: [String: JSONValue] = [:]
        for thread in rows["care_threads"] ?? [] {
            guard let id = thread["thread_id"]?.stringValue else { continue }
            subjects[id] = thread["subject"]
            consultants[id] = thread["consultant_id"]
        }
        let consultant = { (id: JSONValue?) -> JSONValue in ["identifier": ["system": "urn:caretide:consultant-id", "value": id ?? "unknown"]] }
        var resources: [JSONValue] = []
        for message in rows["care_messages"] ?? [] {
            guard let id = message["message_id"], let thread = message["thread_id"]?.stringValue else { continue }
            let fromPatient = message["sender_role"]?.stringValue == "patient"
            var resource: [String: JSONValue] = [
                "resourceType": "Communication", "id": id, "status": "completed", "subject": patient,
                "sender": fromPatient ? patient : consultant(message["sender_id"]),
                "recipient": [fromPatient ? consultant(consultants[thread]) : patient],
                "payload": [["contentString": message["text"] ?? ""]],
            ]
            if let sent = message["sent_at"] { resource["sent"] = sent }
            if let received = message["read_at"], received != .null { resource["received"] = received }
            if let subject = subjects[thread] { resource["topic"] = ["text": subject] }
            resources.append(.object(resource))
        }
        for entry in rows["notifications"] ?? []
        where entry["recipient_role"]?.stringValue == "patient" && entry["recipient_id"]?.stringValue == patientID {
            guard let id = entry["notification_id"] else { continue }
            var resource: [String: JSONValue] = [
                "resourceType": "Communication", "id": id, "status": "completed", "subject": patient, "recipient": [patient],
                "category": [["text": entry["kind"] ?? "notification"]],
                "priority": entry["severity"]?.stringValue == "urgent" ? "urgent" : "routine",
                "payload": [["contentString": entry["message_key"] ?? ""]],
            ]
            if let sent = entry["created_at"] { resource["sent"] = sent }
            resources.append(.object(resource))
        }
        return resources
    }
}
