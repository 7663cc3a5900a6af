import CaretideDomain
import CaretideSchemas
import Foundation

/// When a patient may see an exam report, by the institution's rules: per test code (or `*` for any), and optionally
/// only when the result is abnormal, a result is released at once, after some hours, or held for a clinician's
/// review with a reason. Pure: rules and items in, one decision out.
///
/// For each item the most specific rule that matches decides: its code and abnormal, its code, `*` and abnormal,
/// `*`; an item no rule matches is released at once. A report is as strict as its strictest item: held if any item
/// is held (the first such rule's reason), else released after the longest delay, else at once.
enum ReleasePolicy {
    struct Rule: Codable, Equatable, Sendable {
        /// A test code (LOINC or the lab's own), or `*` for any.
        let testCode: String
        /// Only when the item is outside its reference range.
        let abnormalOnly: Bool
        let release: Mode
        /// With `after`: how many hours after the report arrives.
        let afterHours: Int?
        /// With `hold`: why (shown to the institution, never to the patient).
        let reason: String?

        init(testCode: String, abnormalOnly: Bool, release: Mode, afterHours: Int?, reason: String?) {
            self.testCode = testCode
            self.abnormalOnly = abnormalOnly
            self.release = release
            self.afterHours = afterHours
            self.reason = reason
        }

        /// `abnormalOnly` may be left out (false), as its schema says.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            testCode = try container.decode(String.self, forKey: .testCode)
            abnormalOnly = try container.decodeIfPresent(Bool.self, forKey: .abnormalOnly) ?? false
            release = try container.decode(Mode.self, forKey: .release)
            afterHours = try container.decodeIfPresent(Int.self, forKey: .afterHours)
            reason = try container.decodeIfPresent(String.self, forKey: .reason)
        }
    }

    enum Mode: String, Codable, Sendable {
        case immediately, after, hold
    }

    enum Decision: Equatable, Sendable {
        case immediately
        case after(hours: Int)
        case hold(reason: String)
    }

    /// One item of a report as the rules see it.
    struct Item: Equatable {
        let code: String
        let abnormal: Bool
    }

    static func decide(_ rules: [Rule], items: [Item]) -> Decision {
        var delay = 0
        for item in items {
            let candidates = [(item.code, true), (item.code, false), ("*", true), ("*", false)].filter { !$0.1 || item.abnormal }
            let rule = candidates.lazy.compactMap { code, abnormalOnly in
                rules.first { $0.testCode == code && $0.abnormalOnly == abnormalOnly }
            }.first
            switch rule?.release {
            case .hold?: return .hold(reason: rule?.reason ?? "held for review")
            case .after?: delay = max(delay, rule?.afterHours ?? 0)
            case .immediately?, nil: continue
            }
        }
        return delay > 0 ? .after(hours: delay) : .immediately
    }

    /// Whether an item lies outside its reference range (or its critical limits), by Caretide's flag rule.
    static func isAbnormal(_ line: ExamResultLine) -> Bool {
        let item = ExamResultItem(
            code: line.code, value: line.value, unit: line.unit,
            referenceRange: ReferenceRange(
                low: line.referenceLow, high: line.referenceHigh, criticalLow: line.criticalLow, criticalHigh: line.criticalHigh))
        return ((try? ReferenceRangeFlag.flag(item))?.interpretation ?? .N) != .N
    }
}
