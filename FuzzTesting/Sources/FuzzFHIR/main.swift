import CaretideSchemas
import Foundation

@testable import IngestService

// Loaded once, on the first input, as the service loads it once at start.
private let catalog = SchemaCatalog.bundled

/// Bytes as the body of `POST /v1/institutions/{id}/fhir`, then everything the route does short of storing: the JSON
/// parsed, the Bundle's DiagnosticReports and Observations mapped to reports, each report's body checked against the
/// exam-result schema and, when it passes, decoded and assessed by the clinical rules; the patients read from the
/// bundle; and the OperationOutcome written.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let bundle: JSONValue
    do {
        bundle = try CaretideJSON.parse(bytes)
    } catch {
        // Not JSON: a 400, as the route answers it.
        return 0
    }
    var issues: [FHIRResults.Issue] = []
    switch FHIRResults.reports(in: bundle) {
    case .success(let reports):
        for report in reports {
            guard let body = report.body else { continue }
            let violations = catalog.validateRequest(.examResult, body)
            issues += violations.map {
                .init(code: "invalid", diagnostics: "\($0.pointer): \($0.message)", expression: "Bundle.entry[\(report.entry)]")
            }
            if violations.isEmpty,
                let payload = try? ExamResultRoutes.definition.decode(body, "fuzz")
            {
                _ = try? payload.rule(Date())
            }
        }
        _ = Registrations.fhir(bundle: bundle, reportedPatients: Set(reports.map(\.patientID)))
    case .failure(let list):
        issues = list.issues
    }
    _ = try? CaretideJSON.encode(FHIRRoutes.outcome(issues))
    return 0
}
