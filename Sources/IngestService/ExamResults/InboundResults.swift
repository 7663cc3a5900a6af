import CaretideRuntime
import CaretideSchemas
import Foundation
import HTTPTypes

/// The Kafka door of the institutions' result feeds: hospital pipelines publish the same payloads they would POST
/// (a JSON batch, a FHIR R4 Bundle, an HL7 v2 ORU^R01) to the inbound topics, keyed by institution id. Each message
/// goes through the HTTP door's own checks and storage (`ExamResultBatch`, `FHIRRoutes`, `HL7v2Routes`), so both
/// doors lead to the same events. What the HTTP door would refuse goes to the dead-letter topic with the reason the
/// HTTP answer would give (every failing field, FHIRPath expression or HL7 location); a database failure is retried.
///
/// A JSON batch with some reports refused keeps the others (each report stands alone, as over HTTP) and dead-letters
/// the message naming the refused ones: replayed once fixed, the stored ones answer as duplicates.
struct InboundResults: InboundMessageHandler {
    let records: RecordRoutes

    static let topics: [Topic] = [.inboundExamResults, .inboundFHIR, .inboundHL7v2]

    func handle(_ message: InboundMessage) async throws {
        // The key names the institution (and keeps one institution's corrections in order); without a valid one,
        // nobody could be held to the message.
        guard let key = message.key, let institution = String(validating: key, as: UTF8.self), PatientID.isValid(institution) else {
            throw UnprocessableEvent("the message key must be the institution id (1 to 64 letters, digits or . _ : -)")
        }
        guard let value = message.value, !value.isEmpty else { throw UnprocessableEvent("the message has no value") }
        let origin = WriteOrigin.inboundMessage(message, institutionID: institution)
        switch message.topic {
        case .inboundFHIR: try await fhir(value, institution: institution, origin: origin)
        case .inboundHL7v2: try await hl7v2(value, institution: institution, origin: origin)
        default: try await batch(value, institution: institution, origin: origin)
        }
    }

    private func batch(_ value: [UInt8], institution: String, origin: WriteOrigin) async throws {
        let results: [ExamResultBatch.Result]
        do {
            results = try await ExamResultBatch(records: records).receive(value, institution: institution, origin: origin)
        } catch let problem as HTTPProblem {
            throw UnprocessableEvent(Self.reason(problem.error, problem.violations.map { "\($0.pointer): \($0.message)" }))
        }
        if results.contains(where: { $0.status == .failed }) { throw RetryLater() }
        let refused = results.filter { $0.status == .refused }
        guard refused.isEmpty else {
            throw UnprocessableEvent(
                Self.reason(
                    "\(refused.count) of \(results.count) reports refused (the others are stored)",
                    refused.flatMap { result in
                        (result.violations ?? []).map { "\($0.pointer): \($0.message)" }
                            + (result.violations?.isEmpty ?? true ? ["/reports/\(result.index): \(result.error ?? "")"] : [])
                    }))
        }
    }

    private func fhir(_ value: [UInt8], institution: String, origin: WriteOrigin) async throws {
        let (status, outcome) = try await FHIRRoutes(records: records).receive(value, institution: institution, origin: origin)
        guard status == .ok else {
            let issues = outcome["issue"]?.elements ?? []
            throw UnprocessableEvent(
                Self.reason(
                    "the FHIR Bundle is refused (HTTP \(status.code))",
                    issues.map { "\($0["expression"]?.elements.first?.stringValue ?? "Bundle"): \($0["diagnostics"]?.stringValue ?? "")" }))
        }
    }

    private func hl7v2(_ value: [UInt8], institution: String, origin: WriteOrigin) async throws {
        let acknowledgement = try await HL7v2Routes(records: records).receive(
            String(decoding: value, as: UTF8.self), institution: institution, origin: origin)
        guard acknowledgement.code == "AA" else {
            throw UnprocessableEvent(
                Self.reason(
                    "the HL7 v2 message is refused (\(acknowledgement.code))",
                    acknowledgement.problems.map { "\($0.segment)^\($0.sequence)^\($0.field): \($0.reason)" }))
        }
    }

    /// A dead-letter reason: what was refused, then each place and why.
    static func reason(_ summary: String, _ details: [String]) -> String {
        details.isEmpty ? summary : summary + ": " + details.joined(separator: "; ")
    }
}
