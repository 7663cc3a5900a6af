import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Hummingbird

/// The rules' reference tables as data, for every authenticated caller (`CaretideDomain.ReferenceTable`): each
/// category's range, severity and colour, with its source and the rule-set version.
/// - `GET /v1/reference-tables`: all of them
/// - `GET /v1/reference-tables/{name}`: one (blood-pressure, pulse, body-mass-index, glucose, hba1c, lipids, npi,
///   uv-index, air-quality), and `melanoma-risk`: the risk categories by score with their self-examination intervals,
///   and every factor's weight with its evidence and source
struct ReferenceTableRoutes: Sendable {
    /// The melanoma risk score's reference: how a profile's answers become a score and the score a category.
    struct MelanomaRiskReference: Encodable, Sendable {
        struct Category: Encodable, Sendable {
            let category: MelanomaRiskCategory
            let fromScore: Int
            let toScore: Int
            let selfExaminationIntervalMonths: Int
        }

        let name = "melanoma-risk"
        let title = "Melanoma risk profile: categories and factor weights"
        let score =
            "the number of doublings of the product of the answers' relative risks (rounded down, 0 to 10); a personal history of melanoma makes the category higher whatever the score"
        let categories = MelanomaRiskCategory.allCases.map {
            Category(
                category: $0, fromScore: $0.scores.lowerBound, toScore: $0.scores.upperBound,
                selfExaminationIntervalMonths: $0.selfExaminationIntervalMonths)
        }
        let weights = MelanomaRisk.weights
        let ruleSetVersion = RuleSetVersion.current
    }

    func register(on routes: APIRoutes) {
        routes.get("v1/reference-tables", access: .referenceData, summary: "The clinical rules' reference tables with their sources") { _, _ in
            try jsonResponse(["items": ReferenceTable.all])
        }
        routes.get(
            "v1/reference-tables/:name", access: .referenceData, summary: "One reference table: categories, ranges, severities and colours"
        ) { _, context in
            if context.parameters.get("name") == "melanoma-risk" { return try jsonResponse(MelanomaRiskReference()) }
            guard let table = context.parameters.get("name").flatMap(ReferenceTable.named) else {
                throw HTTPProblem(
                    status: .notFound, error: "no such reference table",
                    violations: [
                        SchemaViolation(
                            pointer: JSONPointer(tokens: ["name"]),
                            message: "must be one of: \((ReferenceTable.all.map(\.name) + ["melanoma-risk"]).joined(separator: ", "))")
                    ])
            }
            return try jsonResponse(table)
        }
    }
}
