import CaretideDomain
import Foundation
import Testing

@Suite("Exam results vs reference range (HL7 v2 Table 0078)")
struct ReferenceRangeFlagTests {
    static let potassium = ReferenceRange(low: 3.5, high: 5.1, criticalLow: 2.5, criticalHigh: 6.5)

    func item(_ value: Double, _ range: ReferenceRange = potassium, comment: String? = nil) -> ExamResultItem {
        ExamResultItem(code: "2823-3", value: value, unit: "mmol/L", referenceRange: range, institutionComment: comment)
    }

    @Test(
        "Golden table: every edge",
        arguments: [
            (2.4, InterpretationCode.LL, Severity.urgent, TipKey.labCriticalLow),
            (2.5, .L, .attention, .labLow),
            (3.49, .L, .attention, .labLow),
            (3.5, .N, .normal, .labNormal),
            (4.2, .N, .normal, .labNormal),
            (5.1, .N, .normal, .labNormal),
            (5.11, .H, .attention, .labHigh),
            (6.5, .H, .attention, .labHigh),
            (6.51, .HH, .urgent, .labCriticalHigh),
        ])
    func golden(value: Double, code: InterpretationCode, severity: Severity, tip: TipKey) throws {
        let flagged = try ReferenceRangeFlag.flag(item(value))
        #expect(flagged.interpretation == code)
        #expect(flagged.severity == severity)
        #expect(flagged.tip == tip)
        #expect(flagged.ruleSetVersion == RuleSetVersion.current)
    }

    @Test("Optional limits: only what is present is applied")
    func optionalLimits() throws {
        let lowOnly = ReferenceRange(low: 60)
        #expect(try ReferenceRangeFlag.flag(item(59, lowOnly)).interpretation == .L)
        #expect(try ReferenceRangeFlag.flag(item(10_000, lowOnly)).interpretation == .N)
        let highOnly = ReferenceRange(high: 5)
        #expect(try ReferenceRangeFlag.flag(item(-3, highOnly)).interpretation == .N)
        #expect(try ReferenceRangeFlag.flag(item(5.01, highOnly)).interpretation == .H)
        let criticalOnly = ReferenceRange(criticalHigh: 20)
        #expect(try ReferenceRangeFlag.flag(item(21, criticalOnly)).interpretation == .HH)
        #expect(try ReferenceRangeFlag.flag(item(19, criticalOnly)).interpretation == .N)
        #expect(try ReferenceRangeFlag.flag(item(1, ReferenceRange())).interpretation == .N)
    }

    @Test("The institution's comment and the item travel with the flag, unchanged")
    func commentCarried() throws {
        let comment = "Haemolysed sample — interpret with caution. (Lab Nord, 2027-01-14)"
        let flagged = try ReferenceRangeFlag.flag(item(5.8, comment: comment))
        #expect(flagged.institutionComment == comment)
        #expect(flagged.item == item(5.8, comment: comment))
        #expect(try ReferenceRangeFlag.flag(item(4.0)).institutionComment == nil)
        let decoded = try JSONDecoder().decode(FlaggedExamResult.self, from: JSONEncoder().encode(flagged))
        #expect(decoded == flagged)
    }

    @Test("Inconsistent ranges are rejected with every problem")
    func invalid() throws {
        let bad = ReferenceRange(low: 5, high: 3, criticalLow: 6, criticalHigh: 2)
        let error = try #require(validationError { try ReferenceRangeFlag.flag(item(4, bad)) })
        #expect(
            error.fields == ["/referenceRange/low", "/referenceRange/criticalLow", "/referenceRange/criticalHigh", "/referenceRange/criticalLow"])
        #expect(validationError { try ReferenceRangeFlag.flag(item(.nan)) }?.fields == ["/value"])
        #expect(validationError { try ReferenceRangeFlag.flag(item(1, ReferenceRange(high: .infinity))) }?.fields == ["/referenceRange/high"])
    }

    @Test("Batch flagging reports all invalid items by index")
    func batch() throws {
        let items = [item(4), item(.nan), item(3, ReferenceRange(low: 4, high: 1)), item(7)]
        let error = try #require(validationError { try ReferenceRangeFlag.flag(items: items) })
        #expect(error.fields == ["/items/1/value", "/items/2/referenceRange/low"])
        let ok = try ReferenceRangeFlag.flag(items: [item(2), item(4), item(7, comment: "repeat requested")])
        #expect(ok.map(\.interpretation) == [.LL, .N, .HH])
        #expect(ok[2].institutionComment == "repeat requested")
    }
}
