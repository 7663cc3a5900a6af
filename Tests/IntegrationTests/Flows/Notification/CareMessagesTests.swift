import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// Messages between a patient and a consultant of their care team, against the real database and broker: threads
/// only within a grant, unread counts and read receipts on both sides, the other side told in their inbox without the
/// text leaving the service, the emergency notice on every compose answer, and the grant's end closing the thread.
@Suite(.serialized, .stoppingStacks) struct CareMessagesTests {
    static let patient = Caller.identity(Identity(subject: "p-talk", role: .patient))
    static let doctor = Caller.identity(Identity(subject: "dr-talk", role: .consultant))
    static let stranger = Caller.identity(Identity(subject: "dr-other", role: .consultant))

    static func put(_ url: String, _ json: String, as caller: Caller) async throws -> HTTP.Reply {
        try await HTTP.send(method: "PUT", url, json: json, as: caller)
    }

    @Test(
        "a patient and their consultant exchange messages in a thread: only within a grant, unread counts and read receipts, the inbox told without the text, closed when the grant ends"
    )
    func conversation() async throws {
        let stack = try await TestStack.start([IngestService.definition, NotificationService.definition])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let threads = "\(notification)/v1/patients/p-talk/threads"
        let thread = UUID()
        let first = #"{"consultantId": "dr-talk", "subject": "New tablets", "text": "My readings are higher since the new tablets."}"#

        // No grant yet: the consultant is refused by the access rules, the patient's thread is refused as closed.
        #expect(try await Self.put("\(threads)/\(thread)", first, as: Self.patient).status == 409)
        #expect(try await HTTP.get(threads, as: Self.doctor).status == 403)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/care-team/dr-talk", json: "{}").status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get(threads, as: Self.doctor).status == 200
        }

        // The patient starts a thread: the answer says messages are not for emergencies; the same request again is a
        // duplicate; a patient must name the consultant; a consultant without a grant may not join.
        let started = try await Self.put("\(threads)/\(thread)", first, as: Self.patient)
        #expect(started.status == 201 && started.text.contains("emergency number"))
        #expect(try await Self.put("\(threads)/\(thread)", first, as: Self.patient).status == 200)
        let unnamed = try await Self.put("\(threads)/\(UUID())", #"{"subject": "x", "text": "y"}"#, as: Self.patient)
        #expect(unnamed.status == 400 && unnamed.text.contains("/consultantId"))
        #expect(
            try await Self.put("\(threads)/\(UUID())", #"{"subject": "x", "text": "\#(String(repeating: "a", count: 4001))"}"#, as: Self.doctor)
                .status == 400)
        #expect(try await Self.put("\(threads)/\(thread)/messages/\(UUID())", #"{"text": "hello"}"#, as: Self.stranger).status == 403)

        // The consultant sees one unread thread, in their own list and in the patient's; reads it; replies.
        let own = try await HTTP.get("\(notification)/v1/threads?unread=true", as: Self.doctor).items()
        #expect(own.count == 1 && own.first?["unread"] as? Int == 1 && own.first?["open"] as? Bool == true)
        #expect(own.first?["subject"] as? String == "New tablets" && own.first?["patientId"] as? String == "p-talk")
        let read = try await HTTP.send(method: "POST", "\(threads)/\(thread)/read", body: nil, as: Self.doctor)
        #expect(read.status == 200 && read.text.contains(#""markedRead":1"#))
        #expect(try await HTTP.get("\(notification)/v1/threads?unread=true", as: Self.doctor).items().isEmpty)
        let reply = UUID()
        let replied = try await Self.put(
            "\(threads)/\(thread)/messages/\(reply)", #"{"text": "Keep taking them; bring your readings on Thursday."}"#, as: Self.doctor)
        #expect(replied.status == 201 && replied.text.contains("emergency number"))

        // The patient's view: one unread message, and the read receipt of their own.
        let mine = try await HTTP.get(threads, as: Self.patient).items()
        #expect(mine.count == 1 && mine.first?["unread"] as? Int == 1)
        let messages = try await HTTP.get("\(threads)/\(thread)/messages", as: Self.patient).items()
        #expect(messages.map { $0["from"] as? String } == ["patient", "consultant"])
        #expect(messages.first?["readAt"] != nil && messages.last?["readAt"] == nil)
        #expect(messages.last?["text"] as? String == "Keep taking them; bring your readings on Thursday.")
        // Another patient reaches none of it, even by the thread's id.
        let other = Caller.identity(Identity(subject: "p-else", role: .patient))
        #expect(try await HTTP.get("\(notification)/v1/patients/p-else/threads/\(thread)/messages", as: other).status == 404)
        #expect(try await HTTP.get("\(notification)/v1/threads", as: other).items().isEmpty)

        // Each side was told in their inbox; the topic carries ids, never the words.
        let doctorInbox = try await HTTP.get("\(notification)/v1/inbox", as: Self.doctor).items()
        #expect(doctorInbox.contains { $0["kind"] as? String == "message" && $0["category"] as? String == "fromPatient" })
        let patientInbox = try await HTTP.get("\(notification)/v1/inbox", as: Self.patient).items()
        #expect(patientInbox.contains { $0["kind"] as? String == "message" && $0["category"] as? String == "fromConsultant" })
        // In words the app need not ship: a title and a sentence, never the message itself.
        let told = try #require(patientInbox.first { $0["kind"] as? String == "message" })
        #expect(told["title"] as? String == "New message" && (told["body"] as? String)?.contains("conversation with your care team") == true)
        let published = try await alerts.receive(2)
        for message in published {
            let text = String(decoding: message.value, as: UTF8.self)
            #expect(!text.contains("tablets") && !text.contains("Thursday"))
        }

        // The grant ends: the thread stays readable for the patient, closed to new messages from either side.
        #expect(try await HTTP.send(method: "DELETE", "\(ingest)/v1/patients/p-talk/care-team/dr-talk").status == 204)
        try await eventually("notification applied the revocation") {
            try await HTTP.get(threads, as: Self.doctor).status == 403
        }
        #expect(try await HTTP.get(threads, as: Self.patient).items().first?["open"] as? Bool == false)
        let late = try await Self.put("\(threads)/\(thread)/messages/\(UUID())", #"{"text": "One more thing"}"#, as: Self.patient)
        #expect(late.status == 409 && late.text.contains("closed"))
        await alerts.close()
    }

    @Test("a consultant of the care team records a patient's NPI on a ward round; the patient's history says who entered each")
    func wardRound() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition])
        let (ingest, scoring) = (stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name))
        let inputs = #"{"tumourSizeCm": 2.2, "histologicalGrade": 2, "positiveNodes": 2, "diagnosisDate": "2026-10-01T00:00:00Z"}"#
        let (ward, own) = (UUID(), UUID())
        // Without a grant the consultant may not; with one, the entry is stored and answered as the patient's is.
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/npi/\(ward)", json: inputs, as: Self.doctor).status == 403)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/care-team/dr-talk", json: "{}").status == 200)
        let recorded = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/npi/\(ward)", json: inputs, as: Self.doctor)
        #expect(recorded.status == 201 && recorded.text.contains(#""npi""#))
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/npi/\(own)", json: inputs, as: Self.patient).status == 201)
        // Another consultant, and an institution, may not.
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-talk/npi/\(UUID())", json: inputs, as: Self.stranger).status == 403)

        try await eventually("scoring assessed both") { try await HTTP.get("\(scoring)/v1/patients/p-talk/npi", as: Self.patient).items().count == 2 }
        let history = try await HTTP.get("\(scoring)/v1/patients/p-talk/npi", as: Self.patient).items()
        let by = Dictionary(uniqueKeysWithValues: history.map { ($0["npiId"] as? String ?? "", $0["recordedBy"] as? [String: String] ?? [:]) })
        #expect(by[ward.uuidString.lowercased()] == ["role": "consultant", "id": "dr-talk"])
        #expect(by[own.uuidString.lowercased()] == ["role": "patient", "id": "p-talk"])
        #expect(history.allSatisfy { ($0["inputs"] as? [String: Any])?["recordedBy"] == nil })
    }
}
