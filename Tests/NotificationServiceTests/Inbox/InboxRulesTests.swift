import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// A notification as stored and published (`NotificationStore.Row`): its id, its recipient, its details.
@Suite struct NotificationRowTests {
    static let raisedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let source = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000c1")!
    static let about = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000c2")!
    static let patient = NotificationStore.Recipient(id: "p-1", role: .patient)

    static func row(_ topic: AlertTopic = .advice, source: UUID = NotificationRowTests.source, to recipient: NotificationStore.Recipient)
        -> NotificationStore.Row
    {
        NotificationStore.Row(topic, severity: .attention, source: source, about: about, to: recipient, patientID: "p-1", raisedAt: raisedAt)
    }

    @Test("the same source notifying the same recipient is the same notification; any other source or recipient is another")
    func ids() {
        let id = Self.row(to: Self.patient).alert.alertID
        #expect(Self.row(to: Self.patient).alert.alertID == id)
        // Even a different topic from the same source to the same recipient is the one notification, stored once.
        #expect(Self.row(.reportShared, to: Self.patient).alert.alertID == id)
        #expect(Self.row(to: .init(id: "p-2", role: .patient)).alert.alertID != id)
        #expect(Self.row(to: .init(id: "p-1", role: .consultant)).alert.alertID != id)
        #expect(Self.row(source: UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000c3")!, to: Self.patient).alert.alertID != id)
    }

    @Test("the alert carries its recipient, the topic's words, and the details given")
    func details() {
        let peak = Self.raisedAt.addingTimeInterval(3600)
        let row = NotificationStore.Row(
            .uvIndex(.high), severity: .attention, source: Self.source, about: Self.about, to: Self.patient, patientID: "p-1",
            raisedAt: Self.raisedAt, reading: ("lisbon", 7.2, peak))
        #expect(row.recipient == Self.patient && row.alert.recipientID == "p-1" && row.alert.recipientRole == .patient)
        #expect(row.alert.kind == "uvIndex" && row.alert.category == "high" && row.alert.messageKey == "alert.uvIndex.high")
        #expect(row.alert.areaCode == "lisbon" && row.alert.value == 7.2 && row.alert.peakAt == peak)
        #expect(row.alert.late == nil && row.alert.outOfRangeCount == nil)
        let reminder = NotificationStore.Row(
            .reminder(topic: "skinCheck"), severity: .normal, source: Self.source, about: Self.about, to: Self.patient, patientID: "p-1",
            raisedAt: Self.raisedAt, text: "left shoulder", late: true)
        #expect(reminder.alert.late == true && reminder.text == "left shoulder" && reminder.alert.areaCode == nil)
    }

    @Test("an alert from before recipients were named is its patient's")
    func legacyRecipient() {
        let legacy = AlertRaised(
            alertID: UUID(), sourceEventID: UUID(), aboutID: UUID(), kind: "bloodPressure", severity: .attention, category: "stage1Hypertension",
            messageKey: "alert.bloodPressure.stage1Hypertension", raisedAt: Self.raisedAt)
        #expect(NotificationStore.Row.recipient(of: legacy, patientID: "p-9") == .init(id: "p-9", role: .patient))
        #expect(NotificationStore.Row.recipient(of: Self.row(to: .init(id: "dr-a", role: .consultant)).alert, patientID: "p-9").id == "dr-a")
    }

    @Test("a kind to filter the inbox by is 1 to 40 ASCII letters")
    func kindWords() {
        for word in ["bloodPressure", "uvIndex", "a", String(repeating: "k", count: 40)] { #expect(InboxRoutes.isKindWord(word), "\(word)") }
        for word in ["", String(repeating: "k", count: 41), "uv_index", "kind1", "blood pressure", "caf\u{E9}"] {
            #expect(!InboxRoutes.isKindWord(word), "\(word)")
        }
    }
}

/// The title and sentence a notification is shown with (`NotificationStore.Notification.worded`).
@Suite struct InboxWordingTests {
    static func notification(kind: String, category: String) -> NotificationStore.Notification {
        NotificationStore.Notification(
            notificationId: UUID(), patientId: "p-1", kind: kind, severity: "normal", category: category, messageKey: "alert.\(kind).\(category)",
            text: nil, outOfRangeCount: nil, areaCode: nil, value: nil, peakAt: nil, aboutId: nil, sourceEventId: UUID(),
            createdAt: Date(timeIntervalSince1970: 1_800_000_000), read: false, acknowledged: false, withdrawn: nil, link: nil)
    }

    @Test("a category's own words win over its kind's; other categories take the kind's")
    func categoryFirst() {
        let activity = Self.notification(kind: "broadcast", category: "activity").worded(.english)
        #expect(activity.title == "Activity" && activity.body == "There is a new activity you can take part in.")
        let information = Self.notification(kind: "broadcast", category: "healthInformation").worded(.english)
        #expect(information.title == "Health information" && information.body == "There is new health information for you.")
    }

    @Test("a translation's words where it has them, English where it has not; nothing for a kind without words")
    func languages() {
        let portuguese = TipTexts(language: "pt", texts: ["inbox.reminder.title": "Lembrete"])
        let reminder = Self.notification(kind: "reminder", category: "skinCheck").worded(portuguese)
        #expect(reminder.title == "Lembrete")
        #expect(reminder.body == "It is time for something you asked to be reminded of.")
        let unknown = Self.notification(kind: "telepathy", category: "x").worded(.english)
        #expect(unknown.title == nil && unknown.body == nil)
    }
}

/// Each recipient's message numbers on `caretide.alerts` (`NotificationDelivery.numbered`): 1, 2, 3… with no gap,
/// raised and withdrawn alike, in the order the messages leave.
@Suite struct AlertSequenceTests {
    static let patient = NotificationStore.Recipient(id: "p-1", role: .patient)
    static let consultant = NotificationStore.Recipient(id: "dr-a", role: .consultant)

    static func raised(_ recipient: NotificationStore.Recipient) -> NotificationDelivery.Message {
        let row = NotificationStore.Row(
            .advice, severity: .normal, source: UUID(), about: UUID(), to: recipient, patientID: "p-1", raisedAt: Date(timeIntervalSince1970: 0))
        return .raised(EventEnvelope(producer: "notification-service", patientID: "p-1", traceID: nil, payload: row.alert))
    }

    static func withdrawn(_ recipient: NotificationStore.Recipient?) -> NotificationDelivery.Message {
        .withdrawn(
            EventEnvelope(
                producer: "notification-service", patientID: "p-1", traceID: nil,
                payload: AlertWithdrawn(
                    alertID: UUID(), sourceEventID: UUID(), reason: .superseded, withdrawnAt: Date(timeIntervalSince1970: 0),
                    recipientID: recipient?.id, recipientRole: recipient?.role)))
    }

    static func sequence(_ message: NotificationDelivery.Message) -> Int? {
        switch message {
        case .raised(let envelope): envelope.payload.sequence
        case .withdrawn(let envelope): envelope.payload.sequence
        }
    }

    @Test("a batch takes the numbers that end at each recipient's counter, interleaved in the order its messages leave")
    func interleaved() {
        let messages = [Self.raised(Self.patient), Self.raised(Self.consultant), Self.withdrawn(Self.patient), Self.raised(Self.patient)]
        let numbered = NotificationDelivery.numbered(
            messages, counts: [Self.patient: 3, Self.consultant: 1], last: [Self.patient: 10, Self.consultant: 1])
        #expect(numbered.map(Self.sequence) == [8, 1, 9, 10])
        #expect(numbered.map(\.alertID) == messages.map(\.alertID))
        #expect(numbered.map(\.recipient) == messages.map(\.recipient))
    }

    @Test("a recipient's first messages are 1, 2, …")
    func firstMessages() {
        let messages = [Self.raised(Self.patient), Self.withdrawn(Self.patient)]
        #expect(NotificationDelivery.numbered(messages, counts: [Self.patient: 2], last: [Self.patient: 2]).map(Self.sequence) == [1, 2])
        // A recipient the counters did not answer for still gets numbers from 1 rather than none.
        #expect(NotificationDelivery.numbered(messages, counts: [Self.patient: 2], last: [:]).map(Self.sequence) == [1, 2])
    }

    @Test("a withdrawal that names no recipient is its patient's, and is numbered in the patient's sequence")
    func unnamedWithdrawal() {
        let unnamed = Self.withdrawn(nil)
        #expect(unnamed.recipient == Self.patient)
        let numbered = NotificationDelivery.numbered([Self.raised(Self.patient), unnamed], counts: [Self.patient: 2], last: [Self.patient: 6])
        #expect(numbered.map(Self.sequence) == [5, 6])
    }
}
