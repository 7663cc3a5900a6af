import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/institutions/{institutionId}/fhir`: exam reports as an HL7 FHIR R4 `Bundle` of DiagnosticReports and
/// their Observations (`FHIRResults`). The bundle is taken whole or not at all: any resource or element that cannot be
/// mapped, or a report the clinical rules refuse, is a 422 `OperationOutcome` naming each (FHIRPath `expression`), and
/// nothing is stored. Taken, the answer is a `transaction-response` Bundle with an entry per request entry. Each
/// report becomes the same exam-result event as a JSON upload; a report `entered-in-error` retracts it.
struct FHIRRoutes: Sendable {
    let records: RecordRoutes

    static let mediaType = "application/fhir+json"

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/institutions/:institutionId/fhir", access: .institutionResults,
            summary:
                "Receive exam reports as a FHIR R4 Bundle (transaction or collection) of DiagnosticReport and Observation; a 422 OperationOutcome names whatever cannot be mapped, and nothing is stored",
            body: [], bodyLimit: Outbox.maximumEventBytes, mediaType: Self.mediaType
        ) { request, context in
            let institution = context.parameters.get("institutionId") ?? ""
            let bytes = Array(buffer: try await request.body.collect(upTo: context.maxUploadSize))
            let (status, answer) = try await receive(bytes, institution: institution, origin: context.origin)
            return Response(
                status: status, headers: [.contentType: Self.mediaType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try CaretideJSON.encode(answer))))
        }
    }

    func receive(_ bytes: [UInt8], institution: String, origin: WriteOrigin) async throws -> (HTTPResponse.Status, JSONValue) {
        let bundle: JSONValue
        do {
            bundle = try CaretideJSON.parse(bytes)
        } catch {
            return (.badRequest, Self.outcome([.init(code: "structure", diagnostics: error.message, expression: "Bundle")]))
        }
        let reports: [FHIRResults.Report]
        switch FHIRResults.reports(in: bundle) {
        case .success(let found): reports = found
        case .failure(let list): return (.unprocessableContent, Self.outcome(list.issues))
        }
        let definition = ExamResultRoutes.definition
        var issues: [FHIRResults.Issue] = []
        var writes: [Int: RecordWrite] = [:]
        for report in reports {
            guard let body = report.body else { continue }
            let recordID = ExamKey(institutionID: institution, examID: report.examID).subjectID
            switch try records.check(definition, mode: .put, patientID: report.patientID, recordID: recordID, body: body, origin: origin) {
            case .ready(let write):
                writes[report.entry] = write
            case .refused(let violations):
                issues += violations.map {
                    .init(
                        code: "invalid", diagnostics: "\($0.pointer.isEmpty ? "the report" : $0.pointer): \($0.message)",
                        expression: "Bundle.entry[\(report.entry)].resource")
                }
            }
        }
        guard issues.isEmpty else { return (.unprocessableContent, Self.outcome(issues)) }

        var outcomes: [Int: (status: String, location: String?)] = [:]
        let results = InstitutionResults(records: records)
        // Only patients whose id is the institution's own take the Bundle's Patient details into their profile.
        var ownIDs: Set<String> = []
        for report in reports {
            let recordID = ExamKey(institutionID: institution, examID: report.examID).subjectID
            do {
                if let write = writes[report.entry] {
                    switch try await results.store(write, institutionID: institution, examID: report.examID, origin: origin) {
                    case .stored(let receipt, let patientID, let linked):
                        if !linked { ownIDs.insert(patientID) }
                        outcomes[report.entry] = (
                            receipt.status == .recorded ? "201 Created" : "200 OK",
                            "DiagnosticReport/\(report.examID)/_history/\(receipt.revision)"
                        )
                    case .waiting:
                        // Held for the link of a patient the institution registered: no version exists yet.
                        outcomes[report.entry] = ("202 Accepted", nil)
                    }
                } else {
                    do {
                        let owner = try await records.patientOwning(definition, recordID: recordID)
                        let receipt = try await records.delete(definition, patientID: owner, recordID: recordID, origin: origin)
                        if owner == report.patientID { ownIDs.insert(owner) }
                        outcomes[report.entry] = ("200 OK", "DiagnosticReport/\(report.examID)/_history/\(receipt.revision)")
                    } catch let missing as HTTPProblem where missing.status == .notFound {
                        guard try await results.retractWaiting(institutionID: institution, examID: report.examID, origin: origin) else {
                            throw missing
                        }
                        outcomes[report.entry] = ("200 OK", nil)
                    }
                }
            } catch let refusal as HTTPProblem {
                // An exam id another patient's report holds, or a retraction of a report never received: said; the
                // reports before it stand (sending the bundle again stores them as duplicates).
                issues.append(
                    .init(
                        code: refusal.status == .notFound ? "not-found" : "conflict", diagnostics: refusal.error,
                        expression: "Bundle.entry[\(report.entry)].resource"))
            }
        }
        guard issues.isEmpty else { return (.conflict, Self.outcome(issues)) }
        // Who the patients are, from the bundle's Patient resources, into their profiles once the reports stand.
        try await ProfileRegistration.register(
            Registrations.fhir(bundle: bundle, reportedPatients: Set(reports.map(\.patientID)).intersection(ownIDs)), institution: institution,
            format: "fhir",
            origin: origin, context: records.context)
        let count = bundle["entry"]?.elements.count ?? 0
        let entries: [JSONValue] = (0..<count).map { index in
            var response: [String: JSONValue] = ["status": .string(outcomes[index]?.status ?? "200 OK")]
            if let location = outcomes[index]?.location { response["location"] = .string(location) }
            return .object(["response": .object(response)])
        }
        return (.ok, .object(["resourceType": .string("Bundle"), "type": .string("transaction-response"), "entry": .array(entries)]))
    }

    static func outcome(_ issues: [FHIRResults.Issue]) -> JSONValue {
        .object([
            "resourceType": .string("OperationOutcome"),
            "issue": .array(
                issues.map {
                    .object([
                        "severity": .string("error"), "code": .string($0.code), "diagnostics": .string($0.diagnostics),
                        "expression": .array([.string($0.expression)]),
                    ])
                }),
        ])
    }
}
