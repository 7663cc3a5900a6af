import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Hummingbird

/// The rules' reference tables as data, for every authenticated caller (`CaretideDomain.ReferenceTable`): each
/// category's range, severity and colour, with its source and the rule-set version.
/// - `GET /v1/reference-tables`: all of them
/// - `GET /v1/reference-tables/{name}`: one (blood-pressure, pulse, body-mass-index, glucose, hba1c, lipids, npi,
///   uv-index, air-quality)
struct ReferenceTableRoutes: Sendable {
    func register(on routes: APIRoutes) {
        routes.get("v1/reference-tables", access: .referenceData, summary: "The clinical rules' reference tables with their sources") { _, _ in
            try jsonResponse(["items": ReferenceTable.all])
        }
        routes.get(
            "v1/reference-tables/:name", access: .referenceData, summary: "One reference table: categories, ranges, severities and colours"
        ) { _, context in
            guard let table = context.parameters.get("name").flatMap(ReferenceTable.named) else {
                throw HTTPProblem(
                    status: .notFound, error: "no such reference table",
                    violations: [
                        SchemaViolation(
                            pointer: JSONPointer(tokens: ["name"]),
                            message: "must be one of: \(ReferenceTable.all.map(\.name).joined(separator: ", "))")
                    ])
            }
            return try jsonResponse(table)
        }
    }
}
