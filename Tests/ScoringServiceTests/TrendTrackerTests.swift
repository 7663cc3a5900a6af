import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Testing

@testable import ScoringService

/// Which new assessments make scoring-service load a patient's series for the trend rules: only those that can
/// complete a pattern, so a batch of normal readings costs no series query.
@Suite struct TrendTrackerTests {
    private func assessment(_ kind: AssessmentKind, category: String) -> Assessment {
        Assessment(
            kind: kind, subjectID: "subject", subjectRevision: 1, category: category, severity: .normal, tip: .bloodPressureNormal,
            observedAt: Date(timeIntervalSince1970: 0), values: [:])
    }

    @Test("a blood pressure below stage 2 cannot complete a stage-2 run; stage 2 and a crisis can", arguments: BloodPressureCategory.allCases)
    func bloodPressure(category: BloodPressureCategory) {
        #expect(TrendTracker.canComplete(assessment(.bloodPressure, category: category.rawValue)) == (category >= .stage2Hypertension))
    }

    @Test("glucose and NPI series have trend rules; the other kinds have none")
    func otherKinds() {
        for kind in AssessmentKind.allCases where kind != .bloodPressure {
            let expected = kind == .glucose || kind == .nottinghamPrognosticIndex
            #expect(TrendTracker.canComplete(assessment(kind, category: "any")) == expected, "\(kind)")
        }
    }

    @Test("a blood-pressure category the rules do not know completes nothing")
    func unknownCategory() {
        #expect(!TrendTracker.canComplete(assessment(.bloodPressure, category: "notACategory")))
    }
}
