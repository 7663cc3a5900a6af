import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// Conversations with the care team: who a thread is with, what each outcome answers, and who hears of a message.
@Suite struct ThreadRulesTests {
    static let patient = ThreadStore.Viewer(side: .patient, id: "p-1")
    static let consultant = ThreadStore.Viewer(side: .consultant, id: "dr-a")
    static let threadID = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000d1")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The consultant chosen, or the JSON Pointers the refusal names.
    static func chosenConsultant(named: String?, sender: ThreadStore.Viewer) -> String {
        do {
            return try ThreadRoutes.consultant(named: named, sender: sender)
        } catch let problem as HTTPProblem {
            return "refused at " + problem.violations.map(\.pointer).joined(separator: ", ")
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a patient names the consultant a thread is with; a consultant starting one is its consultant and may name no other")
    func threadConsultant() {
        #expect(Self.chosenConsultant(named: "dr-a", sender: Self.patient) == "dr-a")
        #expect(Self.chosenConsultant(named: nil, sender: Self.patient) == "refused at /consultantId")
        #expect(Self.chosenConsultant(named: nil, sender: Self.consultant) == "dr-a")
        #expect(Self.chosenConsultant(named: "dr-a", sender: Self.consultant) == "dr-a")
        #expect(Self.chosenConsultant(named: "dr-b", sender: Self.consultant) == "refused at /consultantId")
    }

    @Test("a consultant's view is limited to their own threads; a patient's is not limited by consultant")
    func views() {
        #expect(Self.consultant.consultantID == "dr-a")
        #expect(Self.patient.consultantID == nil)
    }

    @Test("created is 201, the same message again 200, an id taken by another message 409, a closed thread 409, an unknown one 404")
    func statuses() {
        #expect(ThreadRoutes.status(.stored(.created)) == 201)
        #expect(ThreadRoutes.status(.stored(.duplicate)) == 200)
        #expect(ThreadRoutes.status(.stored(.idTaken)) == 409)
        #expect(ThreadRoutes.status(.closed) == 409)
        #expect(ThreadRoutes.status(.notFound) == 404)
    }

    @Test("an id taken, a closed thread and an unknown thread are refused, each with its own reason")
    func refusals() {
        var reasons: [String] = []
        for outcome in [ThreadRoutes.Outcome.stored(.idTaken), .closed, .notFound] {
            do {
                _ = try ThreadRoutes.answer(outcome, threadID: Self.threadID, messageID: UUID())
                reasons.append("answered")
            } catch let problem as HTTPProblem {
                reasons.append(problem.error)
            } catch {
                reasons.append("unexpected \(error)")
            }
        }
        #expect(!reasons.contains("answered") && Set(reasons).count == 3)
        #expect(reasons[1].contains("no grant in force"))
    }

    @Test("the other side hears of a message: a patient's reaches the consultant, a consultant's reaches the patient")
    func otherSide() {
        let fromPatient = ThreadRoutes.messageNotice(
            threadID: Self.threadID, messageID: UUID(), patientID: "p-1", consultantID: "dr-a", sender: Self.patient, now: Self.now)
        #expect(fromPatient.recipient == .init(id: "dr-a", role: .consultant))
        #expect(fromPatient.alert.category == "fromPatient" && fromPatient.subjectID == "p-1")
        let fromConsultant = ThreadRoutes.messageNotice(
            threadID: Self.threadID, messageID: UUID(), patientID: "p-1", consultantID: "dr-a", sender: Self.consultant, now: Self.now)
        #expect(fromConsultant.recipient == .init(id: "p-1", role: .patient))
        #expect(fromConsultant.alert.category == "fromConsultant" && fromConsultant.subjectID == "dr-a")
        for notice in [fromPatient, fromConsultant] {
            #expect(notice.patientID == "p-1" && notice.alert.aboutID == Self.threadID && notice.alert.severity == .normal)
            // The message's words stay in the thread: neither the inbox entry nor the alert carries them.
            #expect(notice.text == nil && notice.alert.messageKey == "alert.message.received")
        }
    }

    @Test("each message is its own notification, and the same message told again is the same one")
    func oneNoticePerMessage() {
        let first = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000d2")!
        let notice = { (messageID: UUID) in
            ThreadRoutes.messageNotice(
                threadID: Self.threadID, messageID: messageID, patientID: "p-1", consultantID: "dr-a", sender: Self.patient, now: Self.now)
        }
        #expect(notice(first).alert.alertID == notice(first).alert.alertID)
        #expect(notice(first).alert.alertID != notice(UUID()).alert.alertID)
        #expect(notice(first).alert.sourceEventID == first)
    }
}
