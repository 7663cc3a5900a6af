import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Hummingbird

/// Patients' and institutions' measurements:
/// - `POST   /v1/patients/{patientId}/measurements/{kind}`: record (re-sending the same measurementId is harmless)
/// - `PUT    /v1/patients/{patientId}/measurements/{kind}/{measurementId}`: record or correct
/// - `DELETE /v1/patients/{patientId}/measurements/{kind}/{measurementId}`: delete (assessments are withdrawn)
/// - `GET    /v1/patients/{patientId}/measurements`: current measurements, oldest first
/// `{kind}` is blood-pressure, pulse, body-measurement, glucose, hba1c or lipid-panel.
struct MeasurementRoutes: Sendable {
    let records: RecordRoutes

    static func definition(_ kind: MeasurementKind) -> RecordDefinition { definitions[kind]! }

    private static let definitions = Dictionary(
        uniqueKeysWithValues: MeasurementKind.allCases.map { kind in
            switch kind {
            case .bloodPressure: (kind, definition(kind, BloodPressureValues.self))
            case .pulse: (kind, definition(kind, PulseValues.self))
            case .bodyMeasurement: (kind, definition(kind, BodyMeasurementValues.self))
            case .glucose: (kind, definition(kind, GlucoseValues.self))
            case .hba1c: (kind, definition(kind, HbA1cValues.self))
            case .lipidPanel: (kind, definition(kind, LipidPanelValues.self))
            }
        })

    private static func definition<Values: MeasurementValues>(_ kind: MeasurementKind, _: Values.Type) -> RecordDefinition {
        RecordDefinition(
            kind: .measurement(kind), request: MeasurementRequest<Values>.self, named: .id(in: "measurementId") { $0.measurementId },
            event: { request, _ in request.reading },
            observedAt: { $0.takenAt },
            observedAtField: "/takenAt",
            deletion: { id, at in MeasurementDeleted(measurementID: UUID(uuidString: id)!, kind: kind, deletedAt: at) })
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/patients/:patientId/measurements/:kind", access: .patientData(.write),
            summary: "Record a measurement; re-sending the same measurementId stores nothing new", body: Self.requestSchemas
        ) { request, context in
            try await records.create(try Self.route(context).1, request: request, context: context)
        }
        routes.put(
            "v1/patients/:patientId/measurements/:kind/:measurementId", access: .patientData(.write),
            summary: "Record or correct a measurement (a correction is the next revision)", body: Self.requestSchemas
        ) { request, context in
            try await records.put(
                try Self.route(context).1, id: try Self.measurementID(context), request: request, context: context)
        }
        routes.delete(
            "v1/patients/:patientId/measurements/:kind/:measurementId", access: .patientData(.write),
            summary: "Delete a measurement; its assessments and alerts are withdrawn"
        ) { _, context in
            let (patientID, definition) = try Self.route(context)
            return try jsonResponse(
                try await records.delete(
                    definition, patientID: patientID, recordID: try Self.measurementID(context), origin: context.origin))
        }
        routes.get(
            "v1/patients/:patientId/measurements", access: .patientData(.read), summary: "The patient's current measurements, oldest first",
            query: [
                QueryParameter("kind", "only this kind (\(MeasurementKind.allCases.map(\.rawValue).joined(separator: ", "))); repeatable")
            ] + Period.queryParameters.map { QueryParameter($0.name, $0.description + "; of when the measurement was taken") },
            paged: true
        ) { request, context in
            let patientID = try PatientID.fromPath(context)
            let kinds = try Self.kinds(request)
            let period = try Period.from(request)
            return try jsonResponse(
                try await records.list(patientID: patientID, kinds: kinds.map(RecordKind.measurement), period: period, page: .from(request)))
        }
    }

    /// `?kind=` (repeatable), every kind when absent, or a 400 naming the parameter.
    static func kinds(_ request: Request) throws -> [MeasurementKind] {
        let texts = request.uri.queryParameters.getAll("kind")
        let kinds = texts.compactMap { MeasurementKind(rawValue: String($0)) }
        guard kinds.count == texts.count else {
            throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: [Self.unknownKind])
        }
        return kinds.isEmpty ? MeasurementKind.allCases : kinds
    }

    static let unknownKind = SchemaViolation(
        pointer: JSONPointer(tokens: ["kind"]), message: "must be one of: \(MeasurementKind.allCases.map(\.rawValue).joined(separator: ", "))")

    static let requestSchemas = MeasurementKind.allCases.map { definition($0).requestSchema }

    static func route(_ context: some RequestContext) throws -> (String, RecordDefinition) {
        let patientID = try PatientID.fromPath(context)
        guard let kind = context.parameters.get("kind").flatMap(MeasurementKind.init(rawValue:)) else {
            throw HTTPProblem(status: .notFound, error: "unknown measurement kind", violations: [Self.unknownKind])
        }
        return (patientID, definition(kind))
    }

    static func measurementID(_ context: some RequestContext) throws -> String {
        try context.uuidParameter("measurementId", label: "measurement id").uuidString.lowercased()
    }
}
