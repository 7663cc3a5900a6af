import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird

/// Exam report release (`ExamRelease`):
/// - `PUT|GET /v1/institutions/{institutionId}/release-rules`: the institution's rules, replaced as a whole
/// - `POST /v1/institutions/{institutionId}/exam-results/{examId}/release`: a clinician releases a held (or delayed) report
/// - `GET /v1/patients/{patientId}/exam-results`: the patient's released reports, newest first, each item with its flag
///   and the institution's advice
struct ReleaseRoutes: Sendable {
    let records: RecordRoutes
    static let schema: RequestSchema = .releaseRules

    struct RulesDocument: Codable, Sendable {
        let rules: [ReleasePolicy.Rule]
    }

    func register(on routes: APIRoutes) {
        let context = records.context
        routes.put(
            "v1/institutions/:institutionId/release-rules", access: .institutionResults,
            summary: "Set when the institution's results become visible to patients (replaced as a whole)", body: [Self.schema]
        ) { request, requestContext in
            let institution = requestContext.parameters.get("institutionId") ?? ""
            let document = try await request.decodedJSON(RulesDocument.self, schema: Self.schema, context: requestContext)
            var violations: [SchemaViolation] = []
            var seen: Set<String> = []
            for (index, rule) in document.rules.enumerated() {
                let at = JSONPointer(tokens: ["rules", String(index)])
                if rule.release == .after && rule.afterHours == nil {
                    violations.append(SchemaViolation(pointer: at.appending("afterHours"), message: "is required with release after"))
                }
                if !seen.insert("\(rule.testCode) \(rule.abnormalOnly)").inserted {
                    violations.append(SchemaViolation(pointer: at, message: "repeats the test code and abnormalOnly of an earlier rule"))
                }
            }
            guard violations.isEmpty else {
                throw HTTPProblem(status: .unprocessableContent, error: "the rules are inconsistent", violations: violations)
            }
            let text = try CaretideJSON.encodeToString(document.rules)
            try await context.transaction { handler in try await ReleaseStore(handler).replaceRules(institutionID: institution, rulesText: text) }
            return try jsonResponse(document)
        }
        routes.get("v1/institutions/:institutionId/release-rules", access: .institutionResults, summary: "The institution's release rules") {
            _, requestContext in
            let institution = requestContext.parameters.get("institutionId") ?? ""
            return try jsonResponse(
                RulesDocument(rules: try await context.transaction { try await ReleaseStore($0).rules(institutionID: institution) }))
        }
        routes.post(
            "v1/institutions/:institutionId/exam-results/:examId/release", access: .institutionResults,
            summary: "Release a held or delayed report to its patient now", body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let recordID = try ExamResultRoutes.recordID(requestContext)
            _ = try await records.patientOwning(ExamResultRoutes.definition, recordID: recordID)
            let requestID = requestContext.requestID
            let status = try await context.transaction { handler in
                let store = ReleaseStore(handler)
                guard let pending = try await store.pending(recordID: recordID) else { return "already released" }
                let now = Date()
                try await ExamRelease.announce(
                    ExamResultRoutes.key(recordID), revision: pending.revision, patientID: pending.patientID, how: .reviewed, at: now,
                    traceID: requestID,
                    handler: handler)
                try await store.markReleased(recordID: recordID, revision: pending.revision, at: now)
                return "released"
            }
            return try jsonResponse(["status": status])
        }
        routes.get(
            "v1/patients/:patientId/exam-results", access: .patientData(.read),
            summary: "The patient's released exam reports, newest first, each item with its flag and the institution's advice", paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let page = try PageRequest.from(request)
            let rows = try await ReleaseStore.released(patientID: patientID, page: page, on: context.database.client, logger: context.logger)
            return try jsonResponse(
                try Page(rows: rows, request: page, cursor: { .init(date: $0.reportedAt, id: $0.recordID) }, item: Self.patientView))
        }
    }

    struct PatientReport: Encodable, Sendable {
        let examId: String
        let institutionId: String
        let revision: Int
        let reportedAt: Date
        let releasedAt: Date
        let status: String?
        let items: [PatientItem]
    }

    struct PatientItem: Encodable, Sendable {
        let code: String
        let name: String
        let value: Double
        let unit: String
        let referenceLow: Double?
        let referenceHigh: Double?
        /// N, L, H, LL or HH (HL7 table 0078), by Caretide's reference-range rule.
        let flag: String
        let severity: String
        /// The institution's advice on this item.
        let advice: String?
    }

    static func patientView(_ row: ReleaseStore.ReleasedReport) throws -> PatientReport {
        let body = try CaretideJSON.parse(Array(row.body.utf8))
        let lines = try JSONValueDecoder.decode([ExamResultLine].self, from: body["items"] ?? .array([]))
        let exam = ExamResultRoutes.key(row.recordID)
        return PatientReport(
            examId: exam.examID, institutionId: exam.institutionID, revision: row.revision, reportedAt: row.reportedAt, releasedAt: row.releasedAt,
            status: body["status"]?.stringValue ?? "final",
            items: lines.map { line in
                let flagged = try? ReferenceRangeFlag.flag(
                    ExamResultItem(
                        code: line.code, value: line.value, unit: line.unit,
                        referenceRange: ReferenceRange(
                            low: line.referenceLow, high: line.referenceHigh, criticalLow: line.criticalLow, criticalHigh: line.criticalHigh)))
                return PatientItem(
                    code: line.code, name: line.name, value: line.value, unit: line.unit, referenceLow: line.referenceLow,
                    referenceHigh: line.referenceHigh,
                    flag: flagged?.interpretation.rawValue ?? "N", severity: flagged?.severity.rawValue ?? "normal", advice: line.comment)
            })
    }
}
