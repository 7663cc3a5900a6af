import CaretideSchemas
import Testing

@testable import IngestService

/// An institution's release rules: the most specific rule decides each item, the strictest item decides the report.
@Suite struct ReleasePolicyTests {
    typealias Rule = ReleasePolicy.Rule
    static func rule(_ code: String, abnormal: Bool = false, _ release: ReleasePolicy.Mode, hours: Int? = nil, reason: String? = nil) -> Rule {
        Rule(testCode: code, abnormalOnly: abnormal, release: release, afterHours: hours, reason: reason)
    }

    let rules = [
        rule("*", .after, hours: 2),
        rule("*", abnormal: true, .hold, reason: "discussed first"),
        rule("2345-7", .immediately),
        rule("2345-7", abnormal: true, .after, hours: 24),
    ]

    @Test("the most specific rule decides an item: code and abnormal, code, * and abnormal, *")
    func specificity() {
        #expect(ReleasePolicy.decide(rules, items: [.init(code: "2345-7", abnormal: false)]) == .immediately)
        #expect(ReleasePolicy.decide(rules, items: [.init(code: "2345-7", abnormal: true)]) == .after(hours: 24))
        #expect(ReleasePolicy.decide(rules, items: [.init(code: "718-7", abnormal: false)]) == .after(hours: 2))
        #expect(ReleasePolicy.decide(rules, items: [.init(code: "718-7", abnormal: true)]) == .hold(reason: "discussed first"))
    }

    @Test("a report is as strict as its strictest item; no rules, or no matching rule, is at once")
    func strictest() {
        #expect(
            ReleasePolicy.decide(rules, items: [.init(code: "2345-7", abnormal: false), .init(code: "718-7", abnormal: false)]) == .after(hours: 2))
        #expect(
            ReleasePolicy.decide(rules, items: [.init(code: "2345-7", abnormal: true), .init(code: "718-7", abnormal: false)]) == .after(hours: 24))
        #expect(
            ReleasePolicy.decide(rules, items: [.init(code: "2345-7", abnormal: false), .init(code: "718-7", abnormal: true)])
                == .hold(reason: "discussed first"))
        #expect(ReleasePolicy.decide([], items: [.init(code: "718-7", abnormal: true)]) == .immediately)
        #expect(ReleasePolicy.decide([Self.rule("1234-5", .hold)], items: [.init(code: "718-7", abnormal: true)]) == .immediately)
        #expect(ReleasePolicy.decide([Self.rule("*", .hold)], items: [.init(code: "x", abnormal: false)]) == .hold(reason: "held for review"))
    }

    @Test("abnormal means outside the reference range or the critical limits")
    func abnormal() {
        func line(_ value: Double) -> ExamResultLine {
            ExamResultLine(code: "2345-7", name: "Glucose", value: value, unit: "mg/dL", referenceLow: 70, referenceHigh: 99)
        }
        #expect(!ReleasePolicy.isAbnormal(line(70)))
        #expect(!ReleasePolicy.isAbnormal(line(99)))
        #expect(ReleasePolicy.isAbnormal(line(69.9)))
        #expect(ReleasePolicy.isAbnormal(line(99.1)))
    }
}
