import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Testing

@testable import ScoringService

/// Which new assessments make scoring-service load a patient's series for the trend rules: only those that can
/// complete a pattern, so a batch of normal readings costs no series query.
@Suite struct TrendTrackerTests {
    private func assessment(_ category: AssessmentCategory) -> Assessment {
        Assessment(
            subjectID: "subject", subjectRevision: 1, category: category, severity: .normal, tip: .bloodPressureNormal,
            observedAt: Date(timeIntervalSince1970: 0), values: [:])
    }

    @Test("a blood pressure below stage 2 cannot complete a stage-2 run; stage 2 and a crisis can", arguments: BloodPressureCategory.allCases)
    func bloodPressure(category: BloodPressureCategory) {
        #expect(TrendTracker.canComplete(assessment(.bloodPressure(category))) == (category >= .stage2Hypertension))
    }

    @Test("glucose and NPI series have trend rules; the other kinds have none")
    func otherKinds() {
        let others: [AssessmentCategory] = [
            .pulse(.normal), .bodyMassIndex(.normal), .glucose(.diabetesRange), .hba1c(.diabetesRange), .lipids(.veryHigh),
            .nottinghamPrognosticIndex(.excellent), .melanomaRisk(.higher), .examResult(.HH), .lesionPhoto(.suspicious),
        ]
        #expect(Set(others.map(\.kind)) == Set(AssessmentKind.allCases.filter { $0 != .bloodPressure }))
        for category in others {
            let expected = category.kind == .glucose || category.kind == .nottinghamPrognosticIndex
            #expect(TrendTracker.canComplete(assessment(category)) == expected, "\(category)")
        }
    }
}
