/// Adult resting pulse (heart-rate) category, ordered from slowest to fastest.
public enum PulseCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// ≤ 40 beats/min.
    case severeBradycardia
    /// 41–59 beats/min.
    case bradycardia
    /// 60–100 beats/min.
    case normal
    /// 101–130 beats/min.
    case tachycardia
    /// ≥ 131 beats/min.
    case severeTachycardia

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension PulseCategory: DeclarationOrdered {}

/// Result of ``Pulse/assess(restingBeatsPerMinute:)``.
public struct PulseAssessment: Sendable, Equatable, Codable {
    public let beatsPerMinute: Int
    public let category: PulseCategory
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Adult resting pulse rule.
///
/// Sources:
/// - Normal adult resting heart rate 60–100 beats/min: American Heart Association, "All About Heart Rate (Pulse)"
///   (heart.org patient information); same range used for the bradycardia (< 60) / tachycardia (> 100)
///   definitions in the 2018 ACC/AHA/HRS Bradycardia Guideline (Kusumoto FM et al., Circulation 2019;140:e382–e482).
/// - Urgent limits ≤ 40 and ≥ 131 beats/min: Royal College of Physicians. National Early Warning Score (NEWS) 2.
///   London: RCP, 2017, Chart 1 — pulse ≤ 40 and ≥ 131 each score 3, a single-parameter "red" score that
///   triggers an urgent clinical review.
///
/// | Category            | beats/min | Severity  |
/// |---------------------|-----------|-----------|
/// | severeBradycardia   | ≤ 40      | urgent    |
/// | bradycardia         | 41–59     | attention |
/// | normal              | 60–100    | normal    |
/// | tachycardia         | 101–130   | attention |
/// | severeTachycardia   | ≥ 131     | urgent    |
///
/// Boundaries: whole beats/min; 40 is severe bradycardia (NEWS2 "≤ 40"), 60 and 100 are normal,
/// 130 is tachycardia, 131 is severe tachycardia. A slow pulse can be normal in trained athletes; the tip says so.
///
/// Plausibility: 20...300 beats/min.
public enum Pulse {
    public static let plausibleRange: ClosedRange<Int> = 20...300

    public static func assess(restingBeatsPerMinute bpm: Int) throws(DomainValidationError) -> PulseAssessment {
        var issues = IssueCollector()
        issues.check(bpm, in: plausibleRange, "/beatsPerMinute", unit: "beats/min")
        try issues.throwIfAny()

        let category: PulseCategory =
            switch bpm {
            case ...40: .severeBradycardia
            case 41...59: .bradycardia
            case 60...100: .normal
            case 101...130: .tachycardia
            default: .severeTachycardia
            }
        let (severity, tip): (Severity, TipKey) =
            switch category {
            case .severeBradycardia: (.urgent, .pulseSevereBradycardia)
            case .bradycardia: (.attention, .pulseBradycardia)
            case .normal: (.normal, .pulseNormal)
            case .tachycardia: (.attention, .pulseTachycardia)
            case .severeTachycardia: (.urgent, .pulseSevereTachycardia)
            }
        return PulseAssessment(
            beatsPerMinute: bpm, category: category, severity: severity, tip: tip,
            ruleSetVersion: RuleSetVersion.current)
    }
}
