/// What Caretide makes of an outside classifier's answer about a skin photo. Caretide classifies nothing: a
/// melanoma classifier is a regulated medical device, and the probability comes from a hospital's validated model
/// (`lesion-photo.classified`). This rule only says how sure that answer is and what the patient is advised.
public enum LesionPhotoCategory: String, Sendable, Codable, CaseIterable {
    /// The model leans towards melanoma (p ≥ 0.5): see a dermatologist; the care team is told at once.
    case suspicious
    /// The model leans away from melanoma but is not sure of it (0.25 < p < 0.5, certainty under 50 %): see a
    /// dermatologist.
    case uncertain
    /// The model is fairly sure it is not melanoma (p ≤ 0.25): keep watching the mole.
    case notSuspicious
}

/// The rule's answer for one probability.
public struct LesionPhotoResult: Sendable, Equatable {
    public let category: LesionPhotoCategory
    /// |p − 0.5| × 2 × 100: 0 % when the model cannot tell, 100 % when it is certain either way.
    public let certaintyPercent: Double
    /// Whether the patient is advised to see a dermatologist (suspicious or uncertain).
    public var dermatologistAdvised: Bool { category != .notSuspicious }
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// The category and certainty of a classifier's melanoma probability (docs/clinical-rules.md §15).
///
/// - Certainty is the melanoma app's definition: |p − 0.5| × 2 × 100 %.
/// - p ≥ 0.5 is **suspicious**: the model's own decision threshold, whatever its certainty.
/// - Below it, a certainty under 50 % (p > 0.25) is **uncertain**; p ≤ 0.25 (certainty ≥ 50 %) is **not suspicious**.
///   The 50 % line is Caretide's convention, awaiting clinical sign-off: it keeps "the model was not sure" from
///   reading as reassurance.
/// Every tip says the result comes from software and can be wrong, and that a changing mole needs a doctor whatever
/// the result.
public enum LesionClassification {
    public static let suspiciousFrom = 0.5
    public static let uncertainAbove = 0.25

    public static func assess(melanomaProbability p: Double) throws(DomainValidationError) -> LesionPhotoResult {
        var issues = IssueCollector()
        issues.check(p, in: 0...1, "/melanomaProbability", decimals: 2)
        try issues.throwIfAny()
        let category: LesionPhotoCategory = p >= suspiciousFrom ? .suspicious : p > uncertainAbove ? .uncertain : .notSuspicious
        let tip: TipKey =
            switch category {
            case .suspicious: .lesionPhotoSuspicious
            case .uncertain: .lesionPhotoUncertain
            case .notSuspicious: .lesionPhotoNotSuspicious
            }
        return LesionPhotoResult(
            category: category, certaintyPercent: certainty(p), tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    /// |p − 0.5| × 2 × 100, rounded to a tenth of a percent (the answer shows no finer).
    public static func certainty(_ p: Double) -> Double {
        (abs(p - 0.5) * 2 * 1000).rounded() / 10
    }
}
