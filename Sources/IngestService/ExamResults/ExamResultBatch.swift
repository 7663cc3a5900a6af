import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/institutions/{institutionId}/exam-results`: a day's reports in one request (up to 1,000, for many
/// patients). Each report is checked as a single PUT of it would be and stored in a transaction of its own, so one bad
/// report refuses only itself; the answer has a result per report, in order.
struct ExamResultBatch: Sendable {
    let records: RecordRoutes

    /// A batch as the institution sends it; each report is checked against its own schema when it is stored.
    struct Batch: SchemaBody {
        static let schema: RequestSchema = .examResultsBatch
        struct Item: Decodable, Sendable {
            let examId: String
            let report: JSONValue
        }
        let reports: [Item]
    }
    /// 8 MiB: 8 KB a report on average for a full batch. Larger reports go in smaller batches, or one by one.
    static let bodyLimit = 8 * 1024 * 1024
    /// Reports stored at once: enough to keep the database busy, few enough to leave connections for other requests.
    static let parallelism = 8

    struct Result: Encodable, Sendable {
        let index: Int
        let examId: String
        /// accepted, duplicate (the same report again), corrected (a changed report: its next revision), waiting (for the
        /// link of a patient the institution registered), refused (with every failing field), or failed (the database
        /// could not store it now: send it again).
        let status: WriteOutcome
        var revision: Int?
        var eventId: UUID?
        var error: String?
        var violations: [SchemaViolation]?
    }

    struct Answer: Encodable, Sendable {
        let results: [Result]
    }

    func upload(_ request: Request, _ context: CaretideRequestContext) async throws -> Response {
        let institution = context.parameters.get("institutionId") ?? ""
        // Read here rather than by `validatedJSON`, whose bound is one event: a batch holds many.
        let bytes = Array(buffer: try await request.body.collect(upTo: context.maxUploadSize))
        return try jsonResponse(Answer(results: try await receive(bytes, institution: institution, origin: context.origin)))
    }

    /// Checks a batch as a whole (a 400 or 422 `HTTPProblem` when it is not one), then stores each report: the HTTP
    /// and the Kafka door alike.
    func receive(_ bytes: [UInt8], institution: String, origin: WriteOrigin) async throws -> [Result] {
        let body: JSONValue
        do {
            body = try CaretideJSON.parse(bytes)
        } catch {
            throw HTTPProblem.invalidBody([error])
        }
        let violations = SchemaCatalog.bundled.validateRequest(Batch.schema, body)
        guard violations.isEmpty else { throw HTTPProblem.invalidBody(violations) }
        let reports: [Batch.Item]
        do {
            reports = try JSONValueDecoder.decode(Batch.self, from: body).reports
        } catch let error as DecodingError {
            throw HTTPProblem.invalidBody([error.violation])
        }

        var seen: Set<String> = []
        let duplicates = reports.map { !seen.insert($0.examId).inserted }
        return try await withThrowingTaskGroup(of: Result.self) { group in
            var results: [Result] = []
            for (index, report) in reports.enumerated() {
                if index >= Self.parallelism, let done = try await group.next() { results.append(done) }
                let duplicate = duplicates[index]
                group.addTask { await store(report, index: index, institution: institution, duplicateInBatch: duplicate, origin: origin) }
            }
            for try await done in group { results.append(done) }
            return results.sorted { $0.index < $1.index }
        }
    }

    /// One report, stored as its own PUT would be; anything refused becomes its result instead of the request's.
    private func store(_ item: Batch.Item, index: Int, institution: String, duplicateInBatch: Bool, origin: WriteOrigin) async -> Result {
        let examID = item.examId
        let at = JSONPointer(tokens: ["reports", String(index)])
        func refused(_ error: String, _ violations: [SchemaViolation]) -> Result {
            Result(index: index, examId: examID, status: .refused, error: error, violations: violations)
        }
        if duplicateInBatch {
            return refused(
                "the request is invalid", [SchemaViolation(pointer: at.appending("examId"), message: "appears more than once in this batch")])
        }
        let report = item.report
        let definition = ExamResultRoutes.definition
        let recordID = ExamKey(institutionID: institution, examID: examID).subjectID
        let prefix = at.tokens + ["report"]
        func prefixed(_ violations: [SchemaViolation]) -> [SchemaViolation] {
            violations.map { SchemaViolation(pointer: JSONPointer(tokens: prefix + JSONPointer(parsing: $0.pointer).tokens), message: $0.message) }
        }
        do {
            let write: RecordWrite
            switch try records.check(
                definition, mode: .put, patientID: nil, recordID: recordID, body: report, origin: origin)
            {
            case .refused(let violations): return refused("the report is invalid or cannot be assessed", prefixed(violations))
            case .ready(let checked): write = checked
            }
            guard (write.record?.bodyText.utf8.count ?? 0) <= Outbox.maximumEventBytes else {
                return refused(
                    "the report is larger than one event may be (\(Outbox.maximumEventBytes) bytes)",
                    [SchemaViolation(pointer: JSONPointer(tokens: prefix), message: "is too large")])
            }
            guard
                case .stored(let receipt, _, _) = try await InstitutionResults(records: records).store(
                    write, institutionID: institution, examID: examID, origin: origin)
            else { return Result(index: index, examId: examID, status: .waiting) }
            let status: WriteOutcome =
                switch receipt.status {
                case .recorded: .accepted
                case .unchanged: .duplicate
                default: receipt.status
                }
            return Result(index: index, examId: examID, status: status, revision: receipt.revision, eventId: receipt.eventId)
        } catch let problem as HTTPProblem {
            return refused(problem.error, prefixed(problem.violations))
        } catch {
            // The database failed this one report (for example a timeout): the others stand; the report can be sent again.
            return Result(index: index, examId: examID, status: .failed, error: "could not be stored now; send this report again")
        }
    }
}
