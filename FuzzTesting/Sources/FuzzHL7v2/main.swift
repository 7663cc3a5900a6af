import CaretideSchemas
import Foundation

@testable import IngestService

// Loaded once, on the first input, as the service loads it once at start.
private let catalog = SchemaCatalog.bundled

/// Bytes as the body of `POST /v1/institutions/{id}/hl7v2`, decoded as the route decodes it, then everything the route
/// does short of storing: the message parsed, its ORU^R01 reports read, each report's body checked against the
/// exam-result schema and, when it passes, decoded and assessed by the clinical rules; who the patient is read from
/// PID; and the acknowledgement written, with an ERR per problem.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let message: HL7v2.Message
    do {
        message = try HL7v2.parse(text)
    } catch {
        // Not an HL7 v2 message: answered AR, as the route answers it.
        _ = HL7v2Routes.Acknowledgement(code: "AR", to: nil, institution: "inst-fuzz", problems: []).text
        return 0
    }
    var problems: [ObservationResults.Problem] = []
    switch ObservationResults.reports(in: message) {
    case .success(let reports):
        for report in reports {
            let violations = catalog.validateRequest(.examResult, report.body)
            problems += violations.map { HL7v2Routes.problem($0, in: report) }
            if violations.isEmpty,
                let payload = try? ExamResultRoutes.definition.decode(report.body, "fuzz")
            {
                _ = try? payload.rule(Date())
            }
        }
    case .failure(let list):
        problems = list.problems
    }
    for segment in message.segments where segment.id == "PID" {
        _ = Registrations.hl7v2(segment)
    }
    _ = HL7v2Routes.Acknowledgement(code: problems.isEmpty ? "AA" : "AE", to: message, institution: "inst-fuzz", problems: problems).text
    return 0
}
