import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Exam reports uploaded by institutions, so patients no longer wait at the hospital for them:
/// - `PUT  /v1/institutions/{institutionId}/exam-results/{examId}`: record, or correct (a new revision)
/// - `POST /v1/institutions/{institutionId}/exam-results/{examId}/entered-in-error`: retract
struct ExamResultRoutes: Sendable {
    let records: RecordRoutes
    var results: InstitutionResults { InstitutionResults(records: records) }

    /// The answer for a report that has no record: one that waits for its patient's link, or was retracted while it
    /// waited.
    struct Held: Encodable, Sendable {
        let id: String
        let status: WriteOutcome
    }

    /// An exam report as an institution sends it: for one of its patients (by the institution's id for them).
    struct Report: SchemaBody {
        static let schema: RequestSchema = .examResult
        let patientId: String
        let reportedAt: Date
        let items: [ExamResultLine]
        let status: ExamResultStatus?

        /// A report as its record stores it.
        static func stored(_ text: String) throws -> Report {
            try JSONValueDecoder.decode(Report.self, from: CaretideJSON.parse(Array(text.utf8)))
        }
    }

    static let definition = RecordDefinition(
        kind: .examResult, request: Report.self, named: .patient { $0.patientId },
        event: { report, id in
            let exam = key(id)
            return ExamResultRecorded(
                examID: exam.examID, institutionID: exam.institutionID, reportedAt: report.reportedAt, items: report.items, status: report.status)
        },
        observedAt: \.reportedAt,
        observedAtField: "/reportedAt",
        deletion: { id, at in
            let exam = key(id)
            return ExamResultEnteredInError(examID: exam.examID, institutionID: exam.institutionID, markedAt: at)
        },
        onStored: ExamRelease.decide)

    /// The exam a stored record id names: every exam report's record id is its `ExamKey.subjectID`, written by
    /// `recordID(_:)` below, so it always splits.
    static func key(_ recordID: String) -> ExamKey {
        ExamKey(subjectID: recordID) ?? ExamKey(institutionID: recordID, examID: "")
    }

    func register(on routes: APIRoutes) {
        // A report may hold many items with the institution's advice: up to the largest event the outbox publishes.
        routes.put(
            "v1/institutions/:institutionId/exam-results/:examId", access: .institutionResults,
            summary: "Upload an exam report for one patient, or correct it (the next revision)", body: [Self.definition.requestSchema],
            bodyLimit: Outbox.maximumEventBytes
        ) { request, context in
            let id = try Self.recordID(context)
            let body = try await records.schemaValidBody(Self.definition, request: request, requestContext: context)
            // The patient comes from the body: institutions upload for many patients.
            let write = try records.checked(Self.definition, mode: .put, patientID: nil, recordID: id, body: body, origin: context.origin)
            let exam = Self.key(id)
            switch try await results.store(write, institutionID: exam.institutionID, examID: exam.examID, origin: context.origin) {
            case .stored(let receipt, _, _): return try jsonResponse(receipt, status: receipt.httpStatus)
            case .waiting: return try jsonResponse(Held(id: id, status: .waiting), status: .accepted)
            }
        }
        let batch = ExamResultBatch(records: records)
        routes.post(
            "v1/institutions/:institutionId/exam-results", access: .institutionResults,
            summary: "Upload up to 1,000 reports at once (a day's results, many patients), with a result per report",
            body: [ExamResultBatch.Batch.schema], bodyLimit: ExamResultBatch.bodyLimit
        ) { request, context in
            try await batch.upload(request, context)
        }
        routes.post(
            "v1/institutions/:institutionId/exam-results/:examId/entered-in-error", access: .institutionResults,
            summary: "Retract a report entered in error; its assessments and alerts are withdrawn", body: [], bodyLimit: APIRoutes.noBody
        ) { _, context in
            let id = try Self.recordID(context)
            let patientID: String
            do {
                patientID = try await records.patientOwning(Self.definition, recordID: id)
            } catch let missing as HTTPProblem where missing.status == .notFound {
                // A report that waits for its patient's link is retracted before anyone saw it.
                let exam = Self.key(id)
                guard try await results.retractWaiting(institutionID: exam.institutionID, examID: exam.examID, origin: context.origin) else {
                    throw missing
                }
                return try jsonResponse(Held(id: id, status: .deleted))
            }
            return try jsonResponse(try await records.delete(Self.definition, patientID: patientID, recordID: id, origin: context.origin))
        }
    }

    static func recordID(_ context: some RequestContext) throws -> String {
        var violations: [SchemaViolation] = []
        let institution = context.parameters.get("institutionId") ?? ""
        let exam = context.parameters.get("examId") ?? ""
        if !PatientID.isValid(institution) {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["institutionId"]), message: "must be 1 to 64 letters, digits or . _ : -"))
        }
        if !PatientID.isValid(exam) {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["examId"]), message: "must be 1 to 64 letters, digits or . _ : -"))
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the path is invalid", violations: violations) }
        return ExamKey(institutionID: institution, examID: exam).subjectID
    }
}
