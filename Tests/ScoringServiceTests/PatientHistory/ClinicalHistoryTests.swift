import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import ScoringService

/// The patient's NPI and melanoma risk histories as read from their stored assessments: what each entry shows, what
/// it leaves out, and how its pages go on.
@Suite struct ClinicalHistoryTests {
    /// 2026-09-21T00:00:00Z.
    static let diagnosed = Date(timeIntervalSince1970: 1_789_948_800)

    static func entry(
        kind: AssessmentKind = .nottinghamPrognosticIndex, category: String, values: JSONValue, inputs: JSONValue,
        observedAt: Date = ClinicalHistoryTests.diagnosed, id: UUID = UUID()
    ) -> AssessmentStore.HistoryEntry {
        AssessmentStore.HistoryEntry(
            assessmentId: id, sourceEventId: UUID(), kind: kind.rawValue, subjectId: "npi-1", subjectRevision: 2, category: category,
            severity: "attention", tip: "npi.moderate", tipText: "Talk it over with your care team.", severityLabel: "Needs attention",
            ruleSetVersion: RuleSetVersion.current, observedAt: observedAt, supersededBy: nil, withdrawn: nil, values: values, inputs: inputs)
    }

    static let npiValues: JSONValue = .object(["npi": .number(4.4), "lymphNodeStage": .number(2), "fiveYearSurvivalPercent": .number(70)])

    @Test("an NPI entry shows what was entered without its ids, who entered it apart, and its group's curve from diagnosis to 5 years")
    func npiEntry() throws {
        let recordedBy: JSONValue = .object(["role": .string("consultant"), "id": .string("dr-a")])
        let inputs: JSONValue = .object([
            "npiId": .string("npi-1"), "revision": .number(2), "recordedBy": recordedBy, "tumourSizeCm": .number(2), "histologicalGrade": .number(2),
            "positiveNodes": .number(2),
        ])
        let npi = try #require(ClinicalHistoryRoutes.npiEntry(Self.entry(category: "moderate", values: Self.npiValues, inputs: inputs)))
        #expect(npi.npiId == "npi-1" && npi.revision == 2 && npi.diagnosisDate == Self.diagnosed)
        #expect(npi.inputs == JSONValue.object(["tumourSizeCm": .number(2), "histologicalGrade": .number(2), "positiveNodes": .number(2)]))
        #expect(npi.recordedBy == recordedBy)
        #expect(npi.npi == 4.4 && npi.lymphNodeStage == 2 && npi.fiveYearSurvivalPercent == 70 && npi.group == "moderate")
        let curve = try NottinghamPrognosticIndex.survivalCurve(for: .moderate)
        #expect(npi.survivalCurve == curve)
        #expect(npi.survivalCurve.map(\.monthsSinceDiagnosis) == Array(stride(from: 0, through: 60, by: 6)))
        #expect(npi.survivalCurve.first?.survivalProbability == 1 && npi.survivalCurve.last?.survivalProbability == 0.7)
    }

    @Test("an entry from before the recorder was kept has none; a category that is no prognostic group gives no NPI entry")
    func npiEdges() {
        let inputs: JSONValue = .object(["npiId": .string("npi-1"), "tumourSizeCm": .number(1.5)])
        let older = ClinicalHistoryRoutes.npiEntry(Self.entry(category: "excellent", values: .object([:]), inputs: inputs))
        #expect(older?.recordedBy == nil && older?.inputs == JSONValue.object(["tumourSizeCm": .number(1.5)]))
        #expect(older?.npi == nil && older?.fiveYearSurvivalPercent == nil && older?.survivalCurve.isEmpty == false)
        #expect(ClinicalHistoryRoutes.npiEntry(Self.entry(category: "stage2Hypertension", values: Self.npiValues, inputs: inputs)) == nil)
        #expect(ClinicalHistoryRoutes.npiEntry(Self.entry(category: "Moderate", values: Self.npiValues, inputs: inputs)) == nil)
    }

    @Test("leaving keys out touches only an object's members; anything else passes through as it is")
    func without() {
        #expect(ClinicalHistoryRoutes.without(["a"], .object(["a": .number(1), "b": .number(2)])) == JSONValue.object(["b": .number(2)]))
        #expect(ClinicalHistoryRoutes.without(["x"], .object(["a": .number(1)])) == JSONValue.object(["a": .number(1)]))
        #expect(ClinicalHistoryRoutes.without(["a"], .array([.string("a")])) == JSONValue.array([.string("a")]))
        #expect(ClinicalHistoryRoutes.without(["a"], .null) == JSONValue.null)
    }

    @Test("a melanoma risk profile shows its answers, whole-number score and interval; without answers its factors are empty")
    func melanomaRisk() {
        let factors: JSONValue = .object(["hairColour": .string("red"), "commonMoles": .string("50-100")])
        let profile = ClinicalHistoryRoutes.melanomaRiskEntry(
            Self.entry(
                kind: .melanomaRisk, category: "higher", values: .object(["score": .number(5), "selfExaminationIntervalMonths": .number(1)]),
                inputs: .object(["factors": factors, "profileId": .string("npi-1")])))
        #expect(profile.profileId == "npi-1" && profile.revision == 2 && profile.answeredAt == Self.diagnosed)
        #expect(profile.factors == factors && profile.category == "higher")
        #expect(profile.score == 5 && profile.selfExaminationIntervalMonths == 1)
        #expect(profile.tipText == "Talk it over with your care team." && profile.severity == "attention")
        let bare = ClinicalHistoryRoutes.melanomaRiskEntry(Self.entry(kind: .melanomaRisk, category: "lower", values: .object([:]), inputs: .null))
        #expect(bare.factors == JSONValue.object([:]) && bare.score == nil && bare.selfExaminationIntervalMonths == nil)
    }

    @Test("a page read newest first goes on below its cursor, one read oldest first above it")
    func order() {
        let newest = AssessmentStore.order(newestFirst: true)
        let oldest = AssessmentStore.order(newestFirst: false)
        #expect(newest.direction == "DESC" && newest.beyond == "<")
        #expect(oldest.direction == "ASC" && oldest.beyond == ">")
    }

    @Test("an entry left out of a page keeps its cursor: the next page starts after the last row read, not the last one shown")
    func pagingPastSkipped() throws {
        let lastID = UUID()
        let later = Self.diagnosed.addingTimeInterval(86_400)
        let rows = [
            Self.entry(category: "good", values: Self.npiValues, inputs: .object([:])),
            Self.entry(category: "unknown", values: Self.npiValues, inputs: .object([:]), observedAt: later, id: lastID),
            Self.entry(category: "poor", values: Self.npiValues, inputs: .object([:]), observedAt: later.addingTimeInterval(86_400)),
        ]
        let page = Page(rows: rows, request: PageRequest(limit: 2)) { PageRequest.Cursor(date: $0.observedAt, id: $0.assessmentId) }
            .compactMap(ClinicalHistoryRoutes.npiEntry)
        #expect(page.items.map(\.group) == ["good"])
        let cursor = try #require(page.nextCursor.flatMap(PageRequest.Cursor.init(encoded:)))
        #expect(cursor.date == later && cursor.uuid == lastID)
    }
}
