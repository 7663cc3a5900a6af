import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/institutions/{institutionId}/hl7v2`: lab results as HL7 v2 `ORU^R01` messages in ER7, the format many
/// hospital lab systems speak, over HTTP. The answer is an HL7 acknowledgement (`ACK`, original mode, HL7 v2.5.1
/// §2.9.2): `MSA-1` `AA` when every report was stored, `AE` (application error) with an `ERR` segment per problem and
/// nothing stored, `AR` (rejected) for what is not an ORU^R01 of version 2.x. Every report becomes the same exam-result
/// event as a JSON upload: both doors lead to the same events.
struct HL7v2Routes: Sendable {
    let records: RecordRoutes

    static let mediaType = "x-application/hl7-v2+er7"

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/institutions/:institutionId/hl7v2", access: .institutionResults,
            summary:
                "Receive an HL7 v2 ORU^R01 message (ER7 text); the answer is an HL7 ACK: AA stored, AE with an ERR per problem and nothing stored, AR not an ORU^R01",
            body: [], bodyLimit: Outbox.maximumEventBytes, mediaType: Self.mediaType
        ) { request, context in
            let institution = context.parameters.get("institutionId") ?? ""
            let text = String(decoding: try await request.body.collect(upTo: context.maxUploadSize).readableBytesView, as: UTF8.self)
            let acknowledgement = try await receive(text, institution: institution, origin: context.origin)
            return Response(
                status: .ok, headers: [.contentType: Self.mediaType + "; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: acknowledgement.text)))
        }
    }

    func receive(_ text: String, institution: String, origin: WriteOrigin) async throws -> Acknowledgement {
        let message: HL7v2.Message
        do {
            message = try HL7v2.parse(text)
        } catch {
            return Acknowledgement(
                code: "AR", to: nil, institution: institution,
                problems: [
                    .init(segment: "MSH", sequence: 1, field: 0, code: .dataTypeError, reason: error.reason)
                ])
        }
        guard message.messageType == "ORU^R01" else {
            return Acknowledgement(
                code: "AR", to: message, institution: institution,
                problems: [
                    .init(
                        segment: "MSH", sequence: 1, field: 9, code: .unsupportedMessageType,
                        reason: "only ORU^R01 (unsolicited observation results) is taken")
                ])
        }
        guard (message.header?.value(12) ?? "").hasPrefix("2.") else {
            return Acknowledgement(
                code: "AR", to: message, institution: institution,
                problems: [
                    .init(segment: "MSH", sequence: 1, field: 12, code: .unsupportedVersion, reason: "MSH-12 must be an HL7 version 2.x")
                ])
        }
        let reports: [ObservationResults.Report]
        switch ObservationResults.reports(in: message) {
        case .success(let found): reports = found
        case .failure(let list): return Acknowledgement(code: "AE", to: message, institution: institution, problems: list.problems)
        }
        // Every report is checked before any is stored: a message is taken whole, or not at all.
        let definition = ExamResultRoutes.definition
        var problems: [ObservationResults.Problem] = []
        var writes: [(ObservationResults.Report, RecordWrite)] = []
        for report in reports {
            let recordID = ExamKey(institutionID: institution, examID: report.examID).subjectID
            switch try records.check(definition, mode: .put, patientID: nil, recordID: recordID, body: report.body, origin: origin) {
            case .refused(let violations): problems += violations.map { Self.problem($0, in: report) }
            case .ready(let write): writes.append((report, write))
            }
        }
        guard problems.isEmpty else { return Acknowledgement(code: "AE", to: message, institution: institution, problems: problems) }
        // The PID's patient's profile takes PID-5/7/8 only when the institution's id is the patient's own (never
        // registered): a registered patient's details are the registration's, and their own profile is theirs.
        var ownIDs: Set<String> = []
        for (report, write) in writes {
            do {
                let delivery = try await InstitutionResults(records: records).store(
                    write, institutionID: institution, examID: report.examID, origin: origin)
                if case .stored(_, let patientID, linked: false) = delivery { ownIDs.insert(patientID) }
            } catch let refusal as HTTPProblem {
                // The exam id belongs to another patient's report, or was retracted: said, and the reports before it
                // stand (sending the message again stores them as duplicates).
                problems.append(.init(segment: "OBR", sequence: report.reportSegment, field: 3, code: .applicationError, reason: refusal.error))
            }
        }
        // Who the patient is, from PID-5/7/8, into their profile once the results stand.
        if problems.isEmpty, let pid = message.segments.first(where: { $0.id == "PID" }),
            let patientID = writes.first?.1.patientID, ownIDs.contains(patientID)
        {
            try await ProfileRegistration.register(
                [patientID: Registrations.hl7v2(pid)], institution: institution, format: "hl7v2", origin: origin, context: records.context)
        }
        return Acknowledgement(code: problems.isEmpty ? "AA" : "AE", to: message, institution: institution, problems: problems)
    }

    /// Where in the message a violation of the report's body points: an item's OBX (its value, unit, range or code),
    /// or the report's OBR.
    static func problem(_ violation: SchemaViolation, in report: ObservationResults.Report) -> ObservationResults.Problem {
        let tokens = JSONPointer(parsing: violation.pointer).tokens
        if tokens.first == "items", tokens.count > 1, let index = Int(tokens[1]), index < report.itemSegments.count {
            let field =
                switch tokens.count > 2 ? tokens[2] : "" {
                case "code", "name": 3
                case "unit": 6
                case "referenceLow", "referenceHigh": 7
                case "comment": 0
                default: 5
                }
            return .init(
                segment: "OBX", sequence: report.itemSegments[index], field: field, code: .dataTypeError,
                reason: "\(violation.pointer): \(violation.message)")
        }
        let field = tokens.first == "patientId" ? 3 : tokens.first == "reportedAt" ? 7 : 0
        return .init(
            segment: tokens.first == "patientId" ? "PID" : "OBR", sequence: report.reportSegment, field: field, code: .dataTypeError,
            reason: "\(violation.pointer.isEmpty ? "the report" : violation.pointer): \(violation.message)")
    }

    /// An HL7 `ACK` in ER7: MSH, MSA (the code and the received MSH-10), and an ERR per problem (ERR-2 location,
    /// ERR-3 code from table 0357, ERR-4 severity, ERR-8 the reason in words).
    struct Acknowledgement {
        let code: String
        let problems: [ObservationResults.Problem]
        let text: String

        init(code: String, to message: HL7v2.Message?, institution: String, problems: [ObservationResults.Problem], now: Date = Date()) {
            self.code = code
            self.problems = problems
            let header = message?.header
            let escape = { HL7v2.escape($0) }
            var segments = [
                [
                    "MSH", "^~\\&", "Caretide", escape(institution), escape(header?.value(3) ?? ""), escape(header?.value(4) ?? ""),
                    // MSH-10, the control id, is at most 20 characters (v2.5.1 §2.14.9.10).
                    Self.timestamp(now), "", "ACK^R01^ACK", String(CaretideRequestContext.newRequestID().prefix(20)),
                    escape(header?.value(11).isEmpty == false ? header!.value(11) : "P"), "2.5.1",
                ].joined(separator: "|"),
                ["MSA", code, escape(message?.controlID ?? "")].joined(separator: "|"),
            ]
            for problem in problems {
                let location = problem.sequence > 0 ? "\(problem.segment)^\(problem.sequence)^\(problem.field)" : problem.segment
                segments.append(
                    ["ERR", "", location, "\(problem.code.rawValue)^\(problem.code.text)^HL70357", "E", "", "", "", escape(problem.reason)].joined(
                        separator: "|"))
            }
            text = segments.joined(separator: "\r") + "\r"
        }

        static func timestamp(_ date: Date) -> String {
            let text = Timestamp.format(date)  // 2026-11-22T06:10:00.000Z
            return text.prefix(19).filter(\.isNumber) + "+0000"
        }
    }
}
