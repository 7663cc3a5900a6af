import CaretideDomain
import Foundation
import Testing

/// The follow-up clock's rule: two weeks to a check-up, 30 days to treatment, reminders half-way and two days before
/// each runs out, the escalation when it does, and what each consultant's finding does to each stage.
@Suite struct LesionFollowUpRuleTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    @Test("each stage's steps: a reminder half-way, one two days before the end, then the escalation at the end")
    func steps() {
        let expected: [(LesionFollowUp.Stage, [LesionFollowUp.Step])] = [
            (.checkUp, [.remind(at: Self.start + 7 * Self.day), .remind(at: Self.start + 12 * Self.day), .escalate(at: Self.start + 14 * Self.day)]),
            (
                .treatment,
                [.remind(at: Self.start + 15 * Self.day), .remind(at: Self.start + 28 * Self.day), .escalate(at: Self.start + 30 * Self.day)]
            ),
        ]
        for (stage, steps) in expected {
            for (sent, step) in steps.enumerated() {
                #expect(LesionFollowUp.next(stage, startedAt: Self.start, remindersSent: sent) == step, "\(stage) after \(sent)")
            }
            // However many were counted, the last step is the escalation.
            #expect(LesionFollowUp.next(stage, startedAt: Self.start, remindersSent: 7) == steps.last)
            #expect(LesionFollowUp.next(stage, startedAt: Self.start, remindersSent: -1) == steps.last)
        }
    }

    @Test("a finding closes the follow-up, starts treatment, or is refused when it does not follow from the stage")
    func transitions() {
        #expect(LesionFollowUp.transition(from: .checkUp, on: .benign) == .close)
        #expect(LesionFollowUp.transition(from: .checkUp, on: .positive) == .start(.treatment))
        #expect(LesionFollowUp.transition(from: .treatment, on: .treated) == .close)
        #expect(LesionFollowUp.transition(from: .treatment, on: .benign) == .close)
        guard case .refused = LesionFollowUp.transition(from: .checkUp, on: .treated) else {
            Issue.record("treatment before a positive check-up must be refused")
            return
        }
        guard case .refused = LesionFollowUp.transition(from: .treatment, on: .positive) else {
            Issue.record("a second positive finding must be refused")
            return
        }
    }

    @Test("only answers that advise a dermatologist open a follow-up")
    func opens() throws {
        #expect(LesionFollowUp.opens(.suspicious) && LesionFollowUp.opens(.uncertain) && !LesionFollowUp.opens(.notSuspicious))
        // The boundaries are LesionClassification's: 0.25 is not suspicious, just above it is uncertain.
        let justAbove = try LesionClassification.assess(melanomaProbability: 0.26).category
        let atTheLine = try LesionClassification.assess(melanomaProbability: 0.25).category
        #expect(LesionFollowUp.opens(justAbove) && !LesionFollowUp.opens(atTheLine))
    }
}
