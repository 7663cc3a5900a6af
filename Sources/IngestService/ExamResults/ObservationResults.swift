import CaretideRuntime
import CaretideSchemas
import Foundation

/// What an `ORU^R01` message reports, as Caretide's exam reports: one per `OBR` (its filler order number, OBR-3, or
/// else its placer's, OBR-2, is the exam id), for the patient of `PID-3`, reported at OBR-22 (results reported) or else
/// OBR-7 (observation time) or else MSH-7. Each `OBX` after the OBR is an item: OBX-3 the code and name (LOINC when the
/// lab codes so), OBX-5 the value, OBX-6 the unit, OBX-7 the reference range (`70-99`, `<5`, `>40`), and the `NTE`
/// segments after it its comment. Pure: a parsed message in, request bodies for `exam-result.request` out.
///
/// Only numeric results (OBX-2 `NM`) become items: an item's value is a number. Any other type is refused by name
/// rather than dropped, so nothing a lab sent is lost without the lab being told.
enum ObservationResults {
    struct Report: Equatable {
        let examID: String
        /// The body of `PUT …/exam-results/{examId}`.
        let body: JSONValue
        /// Where each item came from: the OBX segment's position in the message (1-based), for errors.
        let itemSegments: [Int]
        let reportSegment: Int
    }

    /// A problem in the message, where an HL7 acknowledgement's ERR-2 points: segment id, its position in the message
    /// (1-based), the field; with the HL7 error code (table 0357) of ERR-3.
    struct Problem: Error, Equatable {
        let segment: String
        let sequence: Int
        let field: Int
        let code: ErrorCode
        let reason: String
    }

    /// HL7 table 0357, the codes used here.
    enum ErrorCode: Int, Equatable {
        case requiredFieldMissing = 101
        case dataTypeError = 102
        case unsupportedMessageType = 200
        case unsupportedVersion = 203
        case applicationError = 207

        var text: String {
            switch self {
            case .requiredFieldMissing: "Required field missing"
            case .dataTypeError: "Data type error"
            case .unsupportedMessageType: "Unsupported message type"
            case .unsupportedVersion: "Unsupported version id"
            case .applicationError: "Application internal error"
            }
        }
    }

    /// The reports, or every problem found (then no report should be stored: a message is taken whole or not at all).
    static func reports(in message: HL7v2.Message) -> Result<[Report], ProblemList> {
        var problems: [Problem] = []
        let segments = Array(message.segments.enumerated())
        guard let (pidIndex, pid) = segments.first(where: { $0.element.id == "PID" }) else {
            return .failure(
                ProblemList([
                    Problem(segment: "PID", sequence: 0, field: 0, code: .requiredFieldMissing, reason: "an ORU^R01 message needs a PID segment")
                ]))
        }
        let patientID = pid.value(3)
        if !PatientID.isValid(patientID) {
            problems.append(
                Problem(
                    segment: "PID", sequence: pidIndex + 1, field: 3, code: .dataTypeError,
                    reason: "PID-3 must be the patient's id: 1 to 64 letters, digits or . _ : -"))
        }
        let messageTime = message.header.flatMap { HL7v2.timestamp($0.value(7)) }
        var reports: [Report] = []
        let obrPositions = segments.filter { $0.element.id == "OBR" }.map(\.offset)
        if obrPositions.isEmpty {
            problems.append(
                Problem(segment: "OBR", sequence: 0, field: 0, code: .requiredFieldMissing, reason: "an ORU^R01 message needs an OBR segment"))
        }
        for (number, obrIndex) in obrPositions.enumerated() {
            let obr = segments[obrIndex].element
            let end = number + 1 < obrPositions.count ? obrPositions[number + 1] : segments.count
            let examID = obr.value(3).isEmpty ? obr.value(2) : obr.value(3)
            if !PatientID.isValid(examID) {
                problems.append(
                    Problem(
                        segment: "OBR", sequence: obrIndex + 1, field: 3, code: .requiredFieldMissing,
                        reason: "OBR-3 (or OBR-2) must give the exam id: 1 to 64 letters, digits or . _ : -"))
            }
            let reported = HL7v2.timestamp(obr.value(22)) ?? HL7v2.timestamp(obr.value(7)) ?? messageTime
            if reported == nil {
                problems.append(
                    Problem(
                        segment: "OBR", sequence: obrIndex + 1, field: 7, code: .dataTypeError,
                        reason: "OBR-22, OBR-7 or MSH-7 must give when the results were reported (YYYYMMDDHHMM[SS][+ZZZZ])"))
            }
            // OBR-25 (HL7 table 0123); empty is taken as final, as most senders of finished results leave it so.
            let status: String? =
                switch obr.value(25) {
                case "", "F": "final"
                case "P", "A", "R": "preliminary"
                case "C": "corrected"
                default: nil
                }
            if status == nil {
                problems.append(
                    Problem(
                        segment: "OBR", sequence: obrIndex + 1, field: 25, code: .dataTypeError,
                        reason: "OBR-25 must be F, P, A, R or C: results that were cancelled or not yet produced are not taken"))
            }
            var items: [JSONValue] = []
            var itemSegments: [Int] = []
            for index in (obrIndex + 1)..<end {
                let segment = segments[index].element
                switch segment.id {
                case "OBX":
                    switch item(segment, sequence: index + 1) {
                    case .success(let item):
                        items.append(item)
                        itemSegments.append(index + 1)
                    case .failure(let problem): problems.append(problem)
                    }
                case "NTE" where !items.isEmpty:
                    // NTE-3 is the comment on the OBX before it.
                    let note = segment.fields.count > 3 ? HL7v2.unescape(segment.raw(3), segment.delimiters) : ""
                    guard !note.isEmpty, case .object(var last) = items[items.count - 1] else { continue }
                    let joined = [last["comment"]?.stringValue, note].compactMap { $0 }.joined(separator: " ")
                    last["comment"] = .string(String(joined.prefix(2000)))
                    items[items.count - 1] = .object(last)
                default: continue
                }
            }
            if items.isEmpty && !segments[obrIndex..<end].contains(where: { $0.element.id == "OBX" }) {
                problems.append(
                    Problem(
                        segment: "OBR", sequence: obrIndex + 1, field: 0, code: .requiredFieldMissing, reason: "an OBR needs at least one OBX result")
                )
            }
            reports.append(
                Report(
                    examID: examID,
                    body: .object([
                        "patientId": .string(patientID), "reportedAt": .string(reported.map(Timestamp.format) ?? ""), "items": .array(items),
                        "status": .string(status ?? "final"),
                    ]),
                    itemSegments: itemSegments, reportSegment: obrIndex + 1))
        }
        return problems.isEmpty ? .success(reports) : .failure(ProblemList(problems))
    }

    struct ProblemList: Error, Equatable {
        let problems: [Problem]
        init(_ problems: [Problem]) { self.problems = problems }
    }

    private static func item(_ obx: HL7v2.Segment, sequence: Int) -> Result<JSONValue, Problem> {
        let valueType = obx.value(2)
        guard valueType == "NM" else {
            return .failure(
                Problem(
                    segment: "OBX", sequence: sequence, field: 2, code: .dataTypeError,
                    reason: "OBX-2 is \(valueType.isEmpty ? "empty" : "not NM"): only numeric results are taken"))
        }
        let code = obx.value(3)
        guard !code.isEmpty else {
            return .failure(
                Problem(segment: "OBX", sequence: sequence, field: 3, code: .requiredFieldMissing, reason: "OBX-3 must give the test's code"))
        }
        guard let value = Double(obx.value(5).trimmingCharacters(in: .whitespaces)), value.isFinite else {
            return .failure(Problem(segment: "OBX", sequence: sequence, field: 5, code: .dataTypeError, reason: "OBX-5 must be a number"))
        }
        let name = obx.value(3, component: 2)
        var item: [String: JSONValue] = [
            "code": .string(code), "name": .string(name.isEmpty ? code : name), "value": .number(value), "unit": .string(obx.value(6)),
        ]
        guard let range = referenceRange(obx.value(7)) else {
            return .failure(
                Problem(segment: "OBX", sequence: sequence, field: 7, code: .dataTypeError, reason: "OBX-7 must be a range such as 70-99, <5 or >40"))
        }
        if let low = range.low { item["referenceLow"] = .number(low) }
        if let high = range.high { item["referenceHigh"] = .number(high) }
        return .success(.object(item))
    }

    /// OBX-7 as HL7 writes it for numbers (§7.4.2.7): `low-high`, `>low`, `<high` (also `>=`, `<=`), or empty (no
    /// bounds); nil for anything else.
    static func referenceRange(_ text: String) -> (low: Double?, high: Double?)? {
        let range = text.replacingOccurrences(of: " ", with: "")
        if range.isEmpty { return (nil, nil) }
        for prefix in [">=", ">"] where range.hasPrefix(prefix) {
            return Double(range.dropFirst(prefix.count)).map { (low: $0, high: nil) }
        }
        for prefix in ["<=", "<"] where range.hasPrefix(prefix) {
            return Double(range.dropFirst(prefix.count)).map { (low: nil, high: $0) }
        }
        // The separator is the first hyphen after the first character, so a negative low bound still parses.
        guard let separator = range.dropFirst().firstIndex(of: "-"),
            let low = Double(range[..<separator]), let high = Double(range[range.index(after: separator)...]), low <= high
        else { return nil }
        return (low, high)
    }
}
