import CaretideDomain
import CaretideSchemas
import Testing

@testable import ScoringService

/// `GET /v1/reference-tables/melanoma-risk`: the score ranges of the risk categories as the rules apply them.
@Suite struct MelanomaRiskReferenceTests {
    @Test("the categories cover every score from 0 to the maximum once, in order, each as the rules categorise it")
    func scoreRanges() {
        let categories = ReferenceTableRoutes.MelanomaRiskReference().categories
        #expect(categories.map(\.category) == MelanomaRiskCategory.allCases)
        #expect(categories.first?.fromScore == 0 && categories.last?.toScore == MelanomaRisk.maximumScore)
        for (lower, upper) in zip(categories, categories.dropFirst()) {
            #expect(upper.fromScore == lower.toScore + 1, "\(lower.category) then \(upper.category)")
        }
        for category in categories {
            for score in category.fromScore...category.toScore {
                #expect(MelanomaRiskCategory.of(score: score) == category.category, "score \(score)")
            }
            #expect(category.selfExaminationIntervalMonths == category.category.selfExaminationIntervalMonths)
        }
    }

    @Test("its name is no other table's, so the route's own answer for it hides none; it is written with its weights and rule set")
    func written() throws {
        #expect(ReferenceTable.named("melanoma-risk") == nil)
        #expect(!ReferenceTable.all.map(\.name).contains("melanoma-risk"))
        let written = try CaretideJSON.parse(try CaretideJSON.encode(ReferenceTableRoutes.MelanomaRiskReference()))
        #expect(written["name"] == JSONValue.string("melanoma-risk") && written["ruleSetVersion"] == JSONValue.string(RuleSetVersion.current))
        #expect(written["categories"]?.elements.count == MelanomaRiskCategory.allCases.count)
        #expect(written["weights"]?.elements.count == MelanomaRisk.weights.count && !MelanomaRisk.weights.isEmpty)
        #expect(written["categories"]?.elements.first?["fromScore"] == JSONValue.number(0))
    }
}
