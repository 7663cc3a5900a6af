import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// What a follow-up's stage tells when it opens: the patient and each consultant of the care team, one notification
/// each, named after the follow-up and the stage (so a redelivered answer or a retried finding tells nobody twice).
@Suite struct LesionFollowUpNoticeTests {
    @Test("a stage that opens tells the patient and each consultant, once each, under the stage's own words")
    func opened() {
        let id = UUID()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let checkUp = LesionFollowUps.opened(id, stage: .checkUp, patientID: "p-1", consultants: ["dr-a", "dr-b"], at: now)
        #expect(
            checkUp.map(\.recipient) == [
                .init(id: "p-1", role: .patient), .init(id: "dr-a", role: .consultant), .init(id: "dr-b", role: .consultant),
            ])
        #expect(checkUp.allSatisfy { $0.alert.kind == "lesionFollowUp" && $0.alert.category == "checkUpOpened" && $0.alert.aboutID == id })
        #expect(Set(checkUp.map(\.alert.alertID)).count == 3)
        // The same stage again is the same notifications; the treatment stage's are others.
        let again = LesionFollowUps.opened(id, stage: .checkUp, patientID: "p-1", consultants: ["dr-a", "dr-b"], at: now.addingTimeInterval(60))
        #expect(again.map(\.alert.alertID) == checkUp.map(\.alert.alertID))
        let treatment = LesionFollowUps.opened(id, stage: .treatment, patientID: "p-1", consultants: [], at: now)
        #expect(treatment.map(\.alert.category) == ["treatmentOpened"] && !checkUp.map(\.alert.alertID).contains(treatment[0].alert.alertID))
    }
}
