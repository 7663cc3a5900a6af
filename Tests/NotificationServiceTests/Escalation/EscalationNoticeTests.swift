import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// Closed-loop reporting of critical results (`Escalation.notices`): what an urgent finding nobody acknowledged in time
/// tells, and to whom.
@Suite struct EscalationNoticeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A critical lab value an institution reported, and the event that reported it.
    static let labAbout = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000f1")!
    static let labSource = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000f2")!
    /// A hypertensive crisis in a patient's own reading.
    static let readingAbout = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000f3")!
    static let readingSource = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000f4")!

    typealias Closed = (UUID, String, String?, String, String, UUID, String)

    @Test("a finding reported by an institution escalates to that institution's on-call channel, urgently")
    func institutionsChannel() throws {
        let rows = Escalation.notices(
            [(Self.labAbout, "p-1", "st-mary", "examResult", "critical", Self.labSource, "escalated")], now: Self.now)
        #expect(rows.map(\.recipient) == [.init(id: "st-mary", role: .onCall)])
        let row = try #require(rows.first)
        let alert = row.alert
        #expect(alert.severity == .urgent && alert.kind == "escalation" && alert.category == "critical")
        // Worded by the finding's kind, whichever its category.
        #expect(alert.messageKey == "alert.escalation.examResult")
        #expect(alert.aboutID == Self.labAbout && alert.sourceEventID == Self.labSource && alert.raisedAt == Self.now)
        #expect(row.patientID == "p-1" && row.text == nil)
    }

    @Test("a patient's own measurement, reported by no institution, escalates to the deployment's on-call channel")
    func deploymentsChannel() {
        let rows = Escalation.notices(
            [(Self.readingAbout, "p-2", nil, "bloodPressure", "hypertensiveCrisis", Self.readingSource, "escalated")], now: Self.now)
        #expect(rows.map(\.recipient) == [.init(id: Escalation.defaultChannel, role: .onCall)])
        #expect(Escalation.defaultChannel == "on-call")
        #expect(rows.map(\.alert.category) == ["hypertensiveCrisis"])
    }

    @Test("a finding a consultant acknowledged in time tells nobody")
    func acknowledged() {
        let closed: [Closed] = [
            (Self.labAbout, "p-1", "st-mary", "examResult", "critical", Self.labSource, "acknowledged"),
            (Self.readingAbout, "p-2", nil, "bloodPressure", "hypertensiveCrisis", Self.readingSource, "escalated"),
        ]
        #expect(Escalation.notices(closed, now: Self.now).map(\.alert.aboutID) == [Self.readingAbout])
        #expect(Escalation.notices(Array(closed.prefix(1)), now: Self.now).isEmpty)
        #expect(Escalation.notices([], now: Self.now).isEmpty)
    }

    @Test("the same escalation found again (a retried round) is the same notification")
    func sameNotification() {
        let closed: [Closed] = [(Self.labAbout, "p-1", "st-mary", "examResult", "critical", Self.labSource, "escalated")]
        let first = Escalation.notices(closed, now: Self.now).map(\.alert.alertID)
        #expect(Escalation.notices(closed, now: Self.now.addingTimeInterval(30)).map(\.alert.alertID) == first)
    }
}
