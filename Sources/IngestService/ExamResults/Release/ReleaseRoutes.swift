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
///   and the institution's advice, each report headed by the name, sex and age (then) of the patient's profile, so the
///   patient can confirm the results are theirs
struct ReleaseRoutes: Sendable {
    let records: RecordRoutes

    struct RulesDocument: Codable, SchemaBody {
        static let schema: RequestSchema = .releaseRules
        let rules: [ReleasePolicy.Rule]
    }

    func register(on routes: APIRoutes) {
        let context = records.context
        routes.put(
            "v1/institutions/:institutionId/release-rules", access: .institutionResults,
            summary: "Set when the institution's results become visible to patients (replaced as a whole)", body: [RulesDocument.schema]
        ) { request, requestContext in
            let institution = requestContext.parameters.get("institutionId") ?? ""
            let document = try await request.decode(as: RulesDocument.self, context: requestContext)
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
            summary: "The patient's released exam reports, newest first, each item with its flag and the institution's advice",
            query: Period.queryParameters.map { QueryParameter($0.name, $0.description + "; of when the report was issued") }, paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let page = try PageRequest.from(request)
            let period = try Period.from(request)
            let rows = try await ReleaseStore(context).released(
                patientID: patientID, period: period, page: page)
            let profile = try await ProfileStore(context).current(patientID: patientID)?.profile
            // A report sent under an institution's registration shows who the institution registered, for the patient
            // to confirm it is them.
            let registered = Dictionary(
                try await InstitutionPatientStore(context).links(patientID: patientID).map { ($0.key, $0.asProfile) },
                uniquingKeysWith: { first, _ in first })
            return try jsonResponse(
                try Page(rows: rows, request: page, cursor: { .init(date: $0.reportedAt, id: $0.recordID) }) {
                    try Self.patientView($0, profile: profile, registered: registered)
                })
        }
        routes.get(
            "v1/patients/:patientId/exam-results/series/:code", access: .patientData(.read),
            summary: "One test (by its code, e.g. LOINC) across every released report for a chart, oldest first, with its reference range and flag",
            query: SeriesQuery.queryParameters
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let code = requestContext.parameters.get("code").flatMap(CaretideRequestContext.callerChosenID) else {
                throw HTTPProblem(
                    status: .badRequest, error: "the path is invalid",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["code"]), message: "must be 1 to 64 of A-Z a-z 0-9 . _ -")])
            }
            let query = try SeriesQuery.from(request)
            let rows = try await ReleaseStore(context).releasedItems(
                patientID: patientID, code: code, period: query.period)
            return try jsonResponse(
                SeriesResponse(rows, query: query, time: \.reportedAt, values: { [$0.line.value] }) { row in
                    let exam = ExamResultRoutes.key(row.recordID)
                    return SeriesPoint(
                        reportedAt: row.reportedAt, examId: exam.examID, institutionId: exam.institutionID, revision: row.revision,
                        item: PatientItem(row.line, institutionID: exam.institutionID))
                })
        }
    }

    /// One test of one released report.
    struct SeriesPoint: Encodable, Sendable {
        let reportedAt: Date
        let examId: String
        let institutionId: String
        let revision: Int
        let item: PatientItem
    }

    struct PatientReport: Encodable, Sendable {
        let examId: String
        let institutionId: String
        let revision: Int
        let reportedAt: Date
        let releasedAt: Date
        let status: String?
        /// Who the report is about, from the patient's profile: absent when there is none.
        let patient: ReportPatient?
        let items: [PatientItem]
    }

    /// The heading of a released report, so that the patient can confirm it is theirs.
    struct ReportPatient: Encodable, Sendable {
        /// "Given Family".
        let name: String?
        let sex: ProfileSex?
        /// Completed years when the report was made.
        let age: Int?

        init?(_ profile: PatientProfile?, at reportedAt: Date) {
            guard let profile, profile.name != nil || profile.sex != nil || profile.birthDate != nil else { return nil }
            name = profile.name?.text
            sex = profile.sex
            age = profile.age(at: reportedAt)
        }
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
        /// Where the institution's explanation of the test is read (notification-service's
        /// `GET /v1/institutions/{institutionId}/exam-tests/{code}/explanation`; 404 until it publishes one).
        let explanationPath: String?

        /// A line of a released report of `institutionID`, flagged by Caretide's reference-range rule.
        init(_ line: ExamResultLine, institutionID: String) {
            let flagged = try? ReferenceRangeFlag.flag(
                ExamResultItem(
                    code: line.code, value: line.value, unit: line.unit,
                    referenceRange: ReferenceRange(
                        low: line.referenceLow, high: line.referenceHigh, criticalLow: line.criticalLow, criticalHigh: line.criticalHigh)))
            code = line.code
            name = line.name
            value = line.value
            unit = line.unit
            referenceLow = line.referenceLow
            referenceHigh = line.referenceHigh
            flag = flagged?.interpretation.rawValue ?? "N"
            severity = flagged?.severity.rawValue ?? "normal"
            advice = line.comment
            explanationPath =
                PatientID.isValid(line.code) && PatientID.isValid(institutionID)
                ? "/v1/institutions/\(institutionID)/exam-tests/\(line.code)/explanation" : nil
        }
    }

    /// - Parameter registered: the registrations the patient is linked through: a report sent under one of them shows
    ///   its details rather than the patient's own profile.
    static func patientView(
        _ row: ReleaseStore.ReleasedReport, profile: PatientProfile?, registered: [InstitutionPatientStore.Key: PatientProfile] = [:]
    ) throws -> PatientReport {
        let report = try ExamResultRoutes.Report.stored(row.body)
        let exam = ExamResultRoutes.key(row.recordID)
        let sentFor = InstitutionPatientStore.Key(institutionID: exam.institutionID, institutionPatientID: report.patientId)
        let profile = registered[sentFor] ?? profile
        return PatientReport(
            examId: exam.examID, institutionId: exam.institutionID, revision: row.revision, reportedAt: row.reportedAt, releasedAt: row.releasedAt,
            status: (report.status ?? .final).rawValue, patient: ReportPatient(profile, at: row.reportedAt),
            items: report.items.map { PatientItem($0, institutionID: exam.institutionID) })
    }
}
