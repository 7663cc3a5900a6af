import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// HL7 v2 ER7 parsing and the ORU^R01 mapping, against a fixture written from HL7 v2.5.1 chapters 2 and 7
/// (`Fixtures/oru-r01-lipids-glucose.hl7`: two OBR groups, NTE comments, offsets in DTM times).
@Suite struct HL7v2Tests {
    static let fixture = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Fixtures/oru-r01-lipids-glucose.hl7"),
        encoding: .utf8)

    static func date(_ text: String) -> Date { Timestamp.parse(text)! }

    @Test("the fixture parses: segments, MSH fields numbered as HL7 numbers them, components")
    func parsesTheFixture() throws {
        let message = try HL7v2.parse(Self.fixture)
        #expect(message.segments.map(\.id) == ["MSH", "PID", "OBR", "OBX", "NTE", "OBX", "OBR", "OBX"])
        #expect(message.messageType == "ORU^R01")
        #expect(message.controlID == "MSG00001")
        #expect(message.header?.value(1) == "|")
        #expect(message.header?.value(12) == "2.5.1")
        let pid = message.segments[1]
        #expect(pid.value(3) == "patient-0001" && pid.value(3, component: 4) == "ST-MARY")
        #expect(pid.value(99) == "")
    }

    @Test("a message holding U+0000 anywhere is refused before it is read: PostgreSQL could store none of its text")
    func refusesNUL() {
        let damaged = Self.fixture.replacingOccurrences(of: "patient-0001", with: "patient-\u{0}0001")
        #expect(throws: HL7v2.ParseError(reason: "the message holds the NUL character")) { try HL7v2.parse(damaged) }
    }

    @Test("an ORU^R01 becomes one exam report per OBR with its OBX items, NTE comments, ranges and report time")
    func mapsReports() throws {
        let reports = try ObservationResults.reports(in: HL7v2.parse(Self.fixture)).get()
        #expect(reports.map(\.examID) == ["LAB-2026-0001", "LAB-2026-0002"])
        let lipids = reports[0].body
        #expect(lipids["patientId"] == .string("patient-0001"))
        // OBR-22 (results reported) 06:10 at +01:00.
        #expect(lipids["reportedAt"] == .string("2026-11-22T05:10:00.000Z"))
        #expect(
            lipids["items"]
                == .array([
                    .object([
                        "code": .string("2093-3"), "name": .string("Cholesterol [Mass/volume] in Serum or Plasma"), "value": .number(245),
                        "unit": .string("mg/dL"), "referenceHigh": .number(200), "comment": .string("Fasting sample"),
                    ]),
                    .object([
                        "code": .string("2085-9"), "name": .string("HDL Cholesterol"), "value": .number(38), "unit": .string("mg/dL"),
                        "referenceLow": .number(40),
                    ]),
                ]))
        #expect(reports[0].itemSegments == [4, 6])
        #expect(lipids["status"] == .string("final"))
        // No OBR-22: OBR-7 (observed) 06:05 at +01:00.
        #expect(reports[1].body["reportedAt"] == .string("2026-11-22T05:05:00.000Z"))
        #expect(reports[1].body["items"]?.arrayValueForTests?.first?["referenceLow"] == .number(70))
    }

    @Test("a message may choose its own delimiters; escapes decode; text written back is escaped")
    func delimitersAndEscapes() throws {
        let message = try HL7v2.parse("MSH!@#$%!LIS\rOBX!1!NM!code@Name with $F$ and $S$!!5\r")
        #expect(message.header?.value(3) == "LIS")
        let obx = message.segments[1]
        #expect(obx.value(3) == "code")
        #expect(obx.value(3, component: 2) == "Name with ! and @")
        #expect(HL7v2.unescape(#"a\F\b\S\c\T\d\R\e\E\f\H\g"#, .init()) == #"a|b^c&d~e\f\H\g"#)
        #expect(HL7v2.escape("a|b^c&d~e\\f\rg") == #"a\F\b\S\c\T\d\R\e\E\f g"#)
        for text in ["", "plain", "x|y", "^~&\\", "a\\b|c"] {
            #expect(HL7v2.unescape(HL7v2.escape(text), .init()) == text)
        }
        #expect(throws: HL7v2.ParseError.self) { try HL7v2.parse("PID|1||x\r") }
        #expect(throws: HL7v2.ParseError.self) { try HL7v2.parse("MSH|^^\\&|x\r") }
        #expect(throws: HL7v2.ParseError.self) { try HL7v2.parse("MSH|^~\\&|x\rbad segment\r") }
    }

    @Test("DTM times: offsets, seconds and fractions optional; less than minutes, or impossible dates, refused")
    func timestamps() {
        #expect(HL7v2.timestamp("20261122061000+0100") == Self.date("2026-11-22T05:10:00Z"))
        #expect(HL7v2.timestamp("20261122061000-0330") == Self.date("2026-11-22T09:40:00Z"))
        #expect(HL7v2.timestamp("202611220610") == Self.date("2026-11-22T06:10:00Z"))
        #expect(HL7v2.timestamp("20261122061000.25") == Self.date("2026-11-22T06:10:00.250Z"))
        #expect(HL7v2.timestamp("2026112206") == nil)
        #expect(HL7v2.timestamp("20261340061000") == nil)
        #expect(HL7v2.timestamp("20260230061000") == nil)
        #expect(HL7v2.timestamp("20261122061000+01") == nil)
        #expect(HL7v2.timestamp("") == nil)
    }

    @Test("OBX-7 reference ranges: low-high, >low, <high, empty; anything else refused")
    func ranges() {
        #expect(ObservationResults.referenceRange("70-99")! == (70, 99))
        #expect(ObservationResults.referenceRange(" 3.5 - 5.1 ")! == (3.5, 5.1))
        #expect(ObservationResults.referenceRange("-2-2")! == (-2, 2))
        #expect(ObservationResults.referenceRange(">40")! == (40, nil))
        #expect(ObservationResults.referenceRange("<=5")! == (nil, 5))
        #expect(ObservationResults.referenceRange("")! == (nil, nil))
        #expect(ObservationResults.referenceRange("99-70") == nil)
        #expect(ObservationResults.referenceRange("normal") == nil)
    }

    @Test("problems are named where an ERR points: a text result, a missing value, no PID, no exam id")
    func problems() throws {
        let text = Self.fixture.replacingOccurrences(of: "OBX|2|NM|2085-9", with: "OBX|2|ST|2085-9")
            .replacingOccurrences(of: "||182|", with: "||high|")
        guard case .failure(let list) = ObservationResults.reports(in: try HL7v2.parse(text)) else {
            Issue.record("a text result and a bad value were taken")
            return
        }
        #expect(list.problems.map { "\($0.segment)^\($0.sequence)^\($0.field) \($0.code.rawValue)" } == ["OBX^6^2 102", "OBX^8^5 102"])

        let noPatient = Self.fixture.split(separator: "\r").filter { !$0.hasPrefix("PID") }.joined(separator: "\r")
        guard case .failure(let missing) = ObservationResults.reports(in: try HL7v2.parse(noPatient)) else {
            Issue.record("a message without PID was taken")
            return
        }
        #expect(missing.problems.first?.code == .requiredFieldMissing)

        let cancelled = Self.fixture.replacingOccurrences(of: "060500+0100||||||||||||||||||F", with: "060500+0100||||||||||||||||||X")
        guard case .failure(let cancelledList) = ObservationResults.reports(in: try HL7v2.parse(cancelled)) else {
            Issue.record("a cancelled order's results were taken")
            return
        }
        #expect(cancelledList.problems.map(\.field) == [25])
        let preliminary = Self.fixture.replacingOccurrences(of: "060500+0100||||||||||||||||||F", with: "060500+0100||||||||||||||||||P")
        #expect(try ObservationResults.reports(in: HL7v2.parse(preliminary)).get()[1].body["status"] == .string("preliminary"))

        let noExamID = Self.fixture.replacingOccurrences(of: "OBR|2|ORD-2|LAB-2026-0002^LIS|", with: "OBR|2|||")
        guard case .failure(let noID) = ObservationResults.reports(in: try HL7v2.parse(noExamID)) else {
            Issue.record("an OBR without an exam id was taken")
            return
        }
        #expect(noID.problems.map(\.field) == [3])
    }

    @Test("the acknowledgement echoes the control id and carries an ERR per problem, escaped")
    func acknowledgement() throws {
        let message = try HL7v2.parse(Self.fixture)
        let ack = HL7v2Routes.Acknowledgement(
            code: "AE", to: message, institution: "st-mary",
            problems: [.init(segment: "OBX", sequence: 6, field: 5, code: .dataTypeError, reason: "value|unit")],
            now: Self.date("2026-11-22T06:10:00Z"))
        let segments = ack.text.split(separator: "\r").map(String.init)
        #expect(segments.count == 3)
        #expect(segments[0].hasPrefix("MSH|^~\\&|Caretide|st-mary|LIS|ST-MARY-LAB|20261122061000+0000||ACK^R01^ACK|"))
        #expect(segments[0].hasSuffix("|P|2.5.1"))
        #expect(segments[1] == "MSA|AE|MSG00001")
        #expect(segments[2] == #"ERR||OBX^6^5|102^Data type error^HL70357|E||||value\F\unit"#)
        // It parses as HL7 itself.
        #expect(try HL7v2.parse(ack.text).segments.map(\.id) == ["MSH", "MSA", "ERR"])
    }
}

extension JSONValue {
    var arrayValueForTests: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}
