import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The series a chart draws: `GET /v1/patients/{patientId}/series/{kind}?from=&to=&points=`, one kind of assessment
/// over a period, oldest first, each point with its values, its category and its severity (so a chart shades the
/// category bands and marks the abnormal points). Only what stands: a corrected reading shows its correction, a
/// deleted one nothing. A long period is thinned on the server keeping each bucket's extremes (`SeriesResponse`).
///
/// Exam reports are charted one test at a time from ingest-service, which knows what has been released
/// (`GET /v1/patients/{id}/exam-results/series/{code}`).
struct SeriesRoutes: Sendable {
    let context: ServiceContext

    struct Point: Encodable, Sendable {
        let observedAt: Date
        let values: JSONValue
        let category: String
        let severity: String
        /// The measurement, NPI or profile the point is.
        let subjectId: String
    }

    /// The kinds a series is drawn of, and the values whose extremes thinning keeps.
    static let charted: [AssessmentKind: [String]] = [
        .bloodPressure: ["systolic", "diastolic"],
        .pulse: ["beatsPerMinute"],
        .bodyMassIndex: ["bmi", "weightKg"],
        .glucose: ["valueMgPerDL"],
        .hba1c: ["percent"],
        .lipids: ["totalCholesterolMgPerDL", "ldlCholesterolMgPerDL", "hdlCholesterolMgPerDL", "triglyceridesMgPerDL"],
        .nottinghamPrognosticIndex: ["npi"],
        .melanomaRisk: ["score"],
    ]

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/series/:kind", access: .patientData(.read),
            summary: "One kind of the patient's assessments over a period for a chart, oldest first, thinned to the points asked for",
            query: SeriesQuery.queryParameters
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let kind = requestContext.parameters.get("kind").flatMap(AssessmentKind.init(rawValue:)), let fields = Self.charted[kind] else {
                throw HTTPProblem(
                    status: .notFound, error: "no series of this kind",
                    violations: [
                        SchemaViolation(
                            pointer: JSONPointer(tokens: ["kind"]),
                            message: "must be one of: \(Self.charted.keys.map(\.rawValue).sorted().joined(separator: ", "))")
                    ])
            }
            let query = try SeriesQuery.from(request)
            let rows = try await AssessmentStore(context).standing(patientID: patientID, kind: kind, period: query.period)
            return try jsonResponse(
                SeriesResponse(
                    rows, query: query, time: \.observedAt,
                    values: { Self.values(of: $0, fields: fields) }, point: { $0 }))
        }
    }

    /// A point's charted values in `fields` order, NaN for one it lacks or that is not a number: NaN compares with
    /// nothing, so it never displaces a real lowest or highest value when a long series is thinned.
    static func values(of point: Point, fields: [String]) -> [Double] {
        fields.map { point.values[$0]?.numberValue ?? .nan }
    }

}
