import Foundation

/// Eye colour (self-reported).
public enum EyeColour: String, Sendable, Codable, CaseIterable {
    case blueOrGrey, greenOrHazel, brownOrBlack
}

/// Natural hair colour (before greying or dyeing).
public enum HairColour: String, Sendable, Codable, CaseIterable {
    case red, blond, lightBrown, darkBrownOrBlack
}

/// Number of common moles (melanocytic naevi) on the whole body, in the bands of Gandini et al. 2005 (I).
public enum CommonMoleBand: String, Sendable, Codable, CaseIterable, Comparable {
    case upTo15, from16To40, from41To60, from61To80, from81To100, over100

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

/// Density of freckling.
public enum FrecklingDensity: String, Sendable, Codable, CaseIterable {
    case noneOrFew, many
}

/// Melanoma in first-degree relatives (parents, siblings, children).
public enum MelanomaFamilyHistory: String, Sendable, Codable, CaseIterable, Comparable {
    case none, oneFirstDegreeRelative, moreThanOneFirstDegreeRelative

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

/// The person's own history of skin cancer.
public enum PersonalSkinCancerHistory: String, Sendable, Codable, CaseIterable {
    case none
    /// Basal-cell or squamous-cell carcinoma, or pre-malignant lesions (e.g. actinic keratoses).
    case otherSkinCancer
    case melanoma
}

/// Reasons for immune suppression.
public enum ImmunosuppressionKind: String, Sendable, Codable, CaseIterable, Hashable {
    case organTransplant, hiv, immunosuppressiveTreatment
}

/// Inflammatory bowel disease diagnosed by a doctor.
public enum InflammatoryBowelDisease: String, Sendable, Codable, CaseIterable {
    case none, crohnsDisease, ulcerativeColitis
    /// IBD not (yet) classified as either: weighted with the pooled estimate for IBD as a whole.
    case unclassified
}

/// Use of sunbeds (indoor tanning), in the exposure groups of Boniol et al. 2012.
public enum SunbedUse: String, Sendable, Codable, CaseIterable {
    case never, ever
    /// Ever used, and first before the age of 35.
    case firstBeforeAge35
}

/// The WHO body-mass-index class a melanoma weight is published for: below 25 kg/m², 25 to below 30 (pre-obese,
/// "overweight"), 30 and above (obese).
public enum BodyMassIndexClass: String, Sendable, Codable, CaseIterable {
    case below25, overweight, obese

    public init(_ bmi: Double) {
        self = bmi >= 30 ? .obese : bmi >= 25 ? .overweight : .below25
    }
}

/// Input to ``MelanomaRisk/assess(_:)``. Every property is optional so that "not answered" is representable. The
/// twelve factors of the first rule set are required by the rule and a missing one is reported by name; the four
/// added in rule set 2026.11.3 (inflammatory bowel disease, body-mass index, intermittent sun exposure, sunbeds) are
/// optional, so a profile answered before they were asked is assessed as it was: unanswered, they carry no weight
/// and the profile lists them in ``MelanomaRiskProfile/unansweredFactors``.
public struct MelanomaRiskInput: Sendable, Equatable, Codable {
    /// Age in years (adult tool: 18...120).
    public var age: Int?
    public var sex: AdministrativeSex?
    /// Fitzpatrick skin phototype 1...6 (I–VI).
    public var fitzpatrickSkinType: Int?
    public var eyeColour: EyeColour?
    public var hairColour: HairColour?
    public var commonMoles: CommonMoleBand?
    /// Number of atypical (dysplastic) moles, 0...100.
    public var atypicalMoleCount: Int?
    public var freckling: FrecklingDensity?
    public var familyHistory: MelanomaFamilyHistory?
    public var personalHistory: PersonalSkinCancerHistory?
    /// Empty set = not immunosuppressed; `nil` = not answered.
    public var immunosuppression: Set<ImmunosuppressionKind>?
    /// Ever had a (blistering or painful) sunburn.
    public var sunburnHistory: Bool?
    public var inflammatoryBowelDisease: InflammatoryBowelDisease?
    /// kg/m², 10...80 (the patient's own figure or the app's from their last height and weight).
    public var bodyMassIndex: Double?
    /// Much intermittent sun exposure: sunbathing, beach holidays, outdoor water sports (Gandini 2005 (II)'s
    /// "intermittent exposure", high versus low).
    public var intermittentSunExposure: Bool?
    public var sunbedUse: SunbedUse?

    public init(
        age: Int? = nil, sex: AdministrativeSex? = nil, fitzpatrickSkinType: Int? = nil, eyeColour: EyeColour? = nil,
        hairColour: HairColour? = nil, commonMoles: CommonMoleBand? = nil, atypicalMoleCount: Int? = nil,
        freckling: FrecklingDensity? = nil, familyHistory: MelanomaFamilyHistory? = nil,
        personalHistory: PersonalSkinCancerHistory? = nil, immunosuppression: Set<ImmunosuppressionKind>? = nil,
        sunburnHistory: Bool? = nil, inflammatoryBowelDisease: InflammatoryBowelDisease? = nil, bodyMassIndex: Double? = nil,
        intermittentSunExposure: Bool? = nil, sunbedUse: SunbedUse? = nil
    ) {
        self.age = age
        self.sex = sex
        self.fitzpatrickSkinType = fitzpatrickSkinType
        self.eyeColour = eyeColour
        self.hairColour = hairColour
        self.commonMoles = commonMoles
        self.atypicalMoleCount = atypicalMoleCount
        self.freckling = freckling
        self.familyHistory = familyHistory
        self.personalHistory = personalHistory
        self.immunosuppression = immunosuppression
        self.sunburnHistory = sunburnHistory
        self.inflammatoryBowelDisease = inflammatoryBowelDisease
        self.bodyMassIndex = bodyMassIndex
        self.intermittentSunExposure = intermittentSunExposure
        self.sunbedUse = sunbedUse
    }
}

/// The factors of the melanoma risk profile; raw values are the input field names.
public enum MelanomaRiskFactor: String, Sendable, Codable, CaseIterable {
    case age, sex, fitzpatrickSkinType, eyeColour, hairColour, commonMoles, atypicalMoleCount, freckling,
        familyHistory, personalHistory, immunosuppression, sunburnHistory, inflammatoryBowelDisease, bodyMassIndex,
        intermittentSunExposure, sunbedUse

    /// The factors a profile may leave unanswered (added after the first rule set; see ``MelanomaRiskInput``).
    public static let optional: [Self] = [.inflammatoryBowelDisease, .bodyMassIndex, .intermittentSunExposure, .sunbedUse]
}

/// Melanoma risk category (primary output), ordered `lower < medium < higher`.
public enum MelanomaRiskCategory: String, Sendable, Codable, CaseIterable, Comparable {
    case lower, medium, higher

    /// The scores (doublings of the combined relative risk) of each category; a personal history of melanoma is
    /// higher whatever the score (``MelanomaRisk``).
    public var scores: ClosedRange<Int> {
        switch self {
        case .lower: 0...1
        case .medium: 2...4
        case .higher: 5...MelanomaRisk.maximumScore
        }
    }

    public static func of(score: Int) -> MelanomaRiskCategory { allCases.first { $0.scores.contains(score) } ?? .higher }

    /// Recommended interval between skin self-examinations, in months: every 6 months at lower risk (the melanoma
    /// app's specification), monthly at raised risk (Skin Cancer Foundation public advice); docs/clinical-rules.md §7.
    public var selfExaminationIntervalMonths: Int {
        switch self {
        case .lower: 6
        case .medium, .higher: 1
        }
    }

    /// Whether a regular skin check by a clinician (every 6–12 months) is also advised.
    public var professionalSkinCheckAdvised: Bool { self == .higher }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension CommonMoleBand: DeclarationOrdered {}
extension MelanomaFamilyHistory: DeclarationOrdered {}
extension MelanomaRiskCategory: DeclarationOrdered {}

/// How strong the evidence behind a weight is — shown in `docs/clinical-rules.md` for clinical review.
public enum WeightEvidence: String, Sendable, Codable, CaseIterable {
    /// Reference level (RR 1 by definition).
    case reference
    /// Pooled estimate quoted in the abstract of the cited meta-analysis / pooled analysis.
    case pooledEstimate
    /// Category estimate from the cited meta-analysis' dose–response table; consistent with the log-linear
    /// model anchored on the pooled estimate in its abstract.
    case doseResponseTable
    /// Derived by this rule set (e.g. log-linear interpolation); needs clinical sign-off.
    case derived
    /// No pooled estimate found; value chosen by this rule set; needs clinical sign-off.
    case assumption
    /// Collected but not weighted (no pooled RR in the cited sources, or not answered).
    case notWeighted
}

/// One row of the melanoma weight table.
public struct MelanomaRiskWeight: Sendable, Equatable, Codable {
    public let factor: MelanomaRiskFactor
    /// The input level, spelled as the input's raw value (e.g. `"red"`, `"1"` for skin type I, `"5+"`).
    public let level: String
    /// Relative risk versus the factor's reference level (≥ 1).
    public let relativeRisk: Double
    public let evidence: WeightEvidence
    public let source: String
}

/// Result of ``MelanomaRisk/assess(_:)``.
public struct MelanomaRiskProfile: Sendable, Equatable, Codable {
    /// Primary output.
    public let category: MelanomaRiskCategory
    /// Integer 0...10: the number of doublings of the combined relative risk (see ``MelanomaRisk``).
    /// Deliberately coarse; not a probability.
    public let score: Int
    public let selfExaminationIntervalMonths: Int
    public let professionalSkinCheckAdvised: Bool
    /// Factors whose answer carries a relative risk above 1, in ``MelanomaRiskFactor`` order.
    public let raisingFactors: [MelanomaRiskFactor]
    /// Optional factors left unanswered, which therefore carry no weight (``MelanomaRiskFactor/optional``).
    public let unansweredFactors: [MelanomaRiskFactor]
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Melanoma risk profile (self-examination advice).
///
/// Weights are published relative risks (RR), combined **multiplicatively** (sum of ln RR), i.e. assuming the
/// factors act independently — which overstates risk for correlated factors (fair skin, red hair, freckles).
/// The result is deliberately coarse.
///
/// Sources for the weights (every row of ``weights`` names its source and evidence level):
/// - Gandini S, Sera F, Cattaruzza MS, et al. Meta-analysis of risk factors for cutaneous melanoma: I. Common
///   and atypical naevi. Eur J Cancer 2005;41(1):28–44 (101–120 vs < 15 common naevi RR 6.89; 5 vs 0 atypical
///   naevi RR 6.36; intermediate bands from the dose–response table).
/// - Gandini S et al. … II. Sun exposure. Eur J Cancer 2005;41(1):45–60 (history of sunburn RR 2.03).
/// - Gandini S et al. … III. Family history, actinic damage and phenotypic factors. Eur J Cancer
///   2005;41(14):2040–2059 (family history 1.74; skin type I vs IV 2.09; high freckle density 2.10; blue vs dark
///   eyes 1.47; red vs dark hair 3.64; pre-malignant and skin-cancer lesions 4.28).
/// - Bliss JM, Ford D, Swerdlow AJ, et al. Risk of cutaneous melanoma associated with pigmentation
///   characteristics and freckling: systematic overview of 10 case-control studies. Int J Cancer
///   1995;62(4):367–376 (blonde 1.84, light brown 1.49 vs black/dark brown hair).
/// - Green AC, Olsen CM. Increased risk of melanoma in organ transplant recipients: systematic review and
///   meta-analysis of cohort studies. Acta Derm Venereol 2015;95(8):923–927 (pooled RR 2.71).
/// - Olsen CM, Knight LL, Green AC. Risk of melanoma in people with HIV/AIDS in the pre- and post-HAART eras.
///   PLoS One 2014;9(4):e95096 (post-HAART, ethnicity-adjusted pooled RR 1.50).
/// - Singh S, Nagpal SJ, Murad MH, et al. Inflammatory bowel disease is associated with an increased risk of
///   melanoma: a systematic review and meta-analysis. Clin Gastroenterol Hepatol 2014;12(2):210–218 (IBD 1.37,
///   Crohn's disease 1.80, ulcerative colitis 1.23, versus the general population).
/// - Sergentanis TN, Antoniadis AG, Gogas HJ, et al. Obesity and risk of malignant melanoma: a meta-analysis of
///   cohort and case-control studies. Eur J Cancer 2013;49(3):642–657 (men: overweight 1.31, obese 1.31; women:
///   0.98 and 0.99, not raised).
/// - Boniol M, Autier P, Boyle P, Gandini S. Cutaneous melanoma attributable to sunbed use: systematic review and
///   meta-analysis. BMJ 2012;345:e4757 (ever versus never 1.20; first use before age 35, 1.87).
///
/// **Score.** `score = clamp(floor(Σ ln RR / ln 2), 0, 10)` — the number of whole doublings of risk relative to a
/// person with every factor at its reference level. Integer only: the evidence does not support finer steps.
/// **Category** (primary): score 0–1 → lower; 2–4 → medium; 5–10 → higher; a personal history of melanoma is
/// always `higher`. These cut-offs are **not calibrated** against incidence data — they are a product decision
/// awaiting clinical sign-off (see `docs/clinical-rules.md`).
///
/// Self-examination: lower → every 6 months (the melanoma app's specification); medium → monthly; higher → monthly
/// plus a clinician skin check every 6–12 months (monthly self-examination: Skin Cancer Foundation public advice;
/// 6–12-monthly clinical examination for high-risk groups as summarised in Patient Relat Outcome Meas
/// 2015;6:229–242, Table 1).
///
/// Age is required and validated but carries no weight: the pooled RRs compare people of the same age (the studies
/// are age-matched or age-adjusted), and age enters published models as the baseline incidence of an absolute risk
/// (Fears TR et al. J Clin Oncol 2006;24(22):3590–6), which this relative score does not estimate. Sex (female,
/// male or other) carries none either, except through the body-mass-index weight, which is published for men only.
public enum MelanomaRisk {
    public static let plausibleAge: ClosedRange<Int> = 18...120
    /// Why a child is refused: the apps' age pickers start at "0-9", so a parent may well try.
    static let childMessage =
        "is under 18: this score is for adults, its weights come from studies of adults; a doctor should look at a child's moles and sunburns"
    public static let plausibleSkinType: ClosedRange<Int> = 1...6
    public static let plausibleAtypicalMoleCount: ClosedRange<Int> = 0...100
    public static let plausibleBodyMassIndex: ClosedRange<Double> = 10...80
    public static let maximumScore = 10

    static let g1 = "Gandini S et al. Eur J Cancer 2005;41(1):28-44"
    static let g2 = "Gandini S et al. Eur J Cancer 2005;41(1):45-60"
    static let g3 = "Gandini S et al. Eur J Cancer 2005;41(14):2040-59"
    static let bliss = "Bliss JM et al. Int J Cancer 1995;62(4):367-76"
    static let singh = "Singh S et al. Clin Gastroenterol Hepatol 2014;12(2):210-8"
    static let sergentanis = "Sergentanis TN et al. Eur J Cancer 2013;49(3):642-57"
    static let boniol = "Boniol M et al. BMJ 2012;345:e4757"
    static let notAnswered = "notAnswered"

    /// The complete weight table (data, not code paths).
    public static let weights: [MelanomaRiskWeight] = {
        func w(_ f: MelanomaRiskFactor, _ level: String, _ rr: Double, _ e: WeightEvidence, _ s: String)
            -> MelanomaRiskWeight
        { MelanomaRiskWeight(factor: f, level: level, relativeRisk: rr, evidence: e, source: s) }
        return [
            w(.age, "any", 1.0, .notWeighted, "RRs compare people of the same age; age sets absolute risk (Fears TR et al. J Clin Oncol 2006)"),
            w(.sex, "any", 1.0, .notWeighted, "no pooled RR in cited sources"),
            w(.fitzpatrickSkinType, "1", 2.09, .pooledEstimate, g3 + " (type I vs IV)"),
            w(.fitzpatrickSkinType, "2", 1.63, .derived, "log-linear interpolation I→IV: 2.09^(2/3)"),
            w(.fitzpatrickSkinType, "3", 1.28, .derived, "log-linear interpolation I→IV: 2.09^(1/3)"),
            w(.fitzpatrickSkinType, "4", 1.0, .reference, g3),
            w(.fitzpatrickSkinType, "5", 1.0, .assumption, "set to reference (no lower weight applied)"),
            w(.fitzpatrickSkinType, "6", 1.0, .assumption, "set to reference (no lower weight applied)"),
            w(.eyeColour, EyeColour.blueOrGrey.rawValue, 1.47, .pooledEstimate, g3 + " (blue vs dark)"),
            w(.eyeColour, EyeColour.greenOrHazel.rawValue, 1.47, .assumption, "light eyes given the blue-eye RR, " + g3),
            w(.eyeColour, EyeColour.brownOrBlack.rawValue, 1.0, .reference, g3),
            w(.hairColour, HairColour.red.rawValue, 3.64, .pooledEstimate, g3 + " (red vs dark)"),
            w(.hairColour, HairColour.blond.rawValue, 1.84, .pooledEstimate, bliss + " (blonde vs black/dark brown)"),
            w(.hairColour, HairColour.lightBrown.rawValue, 1.49, .pooledEstimate, bliss + " (light brown vs black/dark brown)"),
            w(.hairColour, HairColour.darkBrownOrBlack.rawValue, 1.0, .reference, g3),
            w(.commonMoles, CommonMoleBand.upTo15.rawValue, 1.0, .reference, g1 + " (< 15)"),
            w(.commonMoles, CommonMoleBand.from16To40.rawValue, 1.47, .doseResponseTable, g1),
            w(.commonMoles, CommonMoleBand.from41To60.rawValue, 2.24, .doseResponseTable, g1),
            w(.commonMoles, CommonMoleBand.from61To80.rawValue, 3.26, .doseResponseTable, g1),
            w(.commonMoles, CommonMoleBand.from81To100.rawValue, 4.74, .doseResponseTable, g1),
            w(.commonMoles, CommonMoleBand.over100.rawValue, 6.89, .pooledEstimate, g1 + " (101-120 vs < 15; not extrapolated above)"),
            w(.atypicalMoleCount, "0", 1.0, .reference, g1),
            w(.atypicalMoleCount, "1", 1.45, .doseResponseTable, g1),
            w(.atypicalMoleCount, "2", 2.10, .doseResponseTable, g1),
            w(.atypicalMoleCount, "3", 3.03, .doseResponseTable, g1),
            w(.atypicalMoleCount, "4", 4.39, .doseResponseTable, g1),
            w(.atypicalMoleCount, "5+", 6.36, .pooledEstimate, g1 + " (5 vs 0; not extrapolated above)"),
            w(.freckling, FrecklingDensity.noneOrFew.rawValue, 1.0, .reference, g3),
            w(.freckling, FrecklingDensity.many.rawValue, 2.10, .pooledEstimate, g3 + " (high vs low density)"),
            w(.familyHistory, MelanomaFamilyHistory.none.rawValue, 1.0, .reference, g3),
            w(.familyHistory, MelanomaFamilyHistory.oneFirstDegreeRelative.rawValue, 1.74, .pooledEstimate, g3),
            w(
                .familyHistory, MelanomaFamilyHistory.moreThanOneFirstDegreeRelative.rawValue, 3.03, .derived,
                "1.74 squared (multiplicative assumption), " + g3),
            w(.personalHistory, PersonalSkinCancerHistory.none.rawValue, 1.0, .reference, g3),
            w(
                .personalHistory, PersonalSkinCancerHistory.otherSkinCancer.rawValue, 4.28, .pooledEstimate,
                g3 + " (pre-malignant and skin cancer lesions)"),
            w(
                .personalHistory, PersonalSkinCancerHistory.melanoma.rawValue, 4.28, .assumption,
                g3 + " lesion RR; category forced to higher"),
            w(.immunosuppression, "none", 1.0, .reference, "-"),
            w(
                .immunosuppression, ImmunosuppressionKind.organTransplant.rawValue, 2.71, .pooledEstimate,
                "Green AC, Olsen CM. Acta Derm Venereol 2015;95(8):923-7"),
            w(
                .immunosuppression, ImmunosuppressionKind.hiv.rawValue, 1.50, .pooledEstimate,
                "Olsen CM et al. PLoS One 2014;9(4):e95096 (post-HAART, ethnicity-adjusted)"),
            w(
                .immunosuppression, ImmunosuppressionKind.immunosuppressiveTreatment.rawValue, 1.50, .assumption,
                "no pooled estimate across drug classes; set equal to the HIV estimate"),
            w(.sunburnHistory, "no", 1.0, .reference, g2),
            w(.sunburnHistory, "yes", 2.03, .pooledEstimate, g2 + " (history of sunburn)"),
            w(.inflammatoryBowelDisease, InflammatoryBowelDisease.none.rawValue, 1.0, .reference, singh + " (general population)"),
            w(.inflammatoryBowelDisease, InflammatoryBowelDisease.crohnsDisease.rawValue, 1.80, .pooledEstimate, singh + " (Crohn's disease)"),
            w(.inflammatoryBowelDisease, InflammatoryBowelDisease.ulcerativeColitis.rawValue, 1.23, .pooledEstimate, singh + " (ulcerative colitis)"),
            w(.inflammatoryBowelDisease, InflammatoryBowelDisease.unclassified.rawValue, 1.37, .pooledEstimate, singh + " (IBD overall)"),
            w(.inflammatoryBowelDisease, notAnswered, 1.0, .notWeighted, "not answered"),
            w(.bodyMassIndex, BodyMassIndexClass.below25.rawValue, 1.0, .reference, sergentanis + " (normal weight)"),
            w(.bodyMassIndex, "male." + BodyMassIndexClass.overweight.rawValue, 1.31, .pooledEstimate, sergentanis + " (men, overweight)"),
            w(.bodyMassIndex, "male." + BodyMassIndexClass.obese.rawValue, 1.31, .pooledEstimate, sergentanis + " (men, obese)"),
            w(
                .bodyMassIndex, "female." + BodyMassIndexClass.overweight.rawValue, 1.0, .reference,
                sergentanis + " (women, overweight: 0.98, not raised)"),
            w(.bodyMassIndex, "female." + BodyMassIndexClass.obese.rawValue, 1.0, .reference, sergentanis + " (women, obese: 0.99, not raised)"),
            w(
                .bodyMassIndex, "other." + BodyMassIndexClass.overweight.rawValue, 1.0, .assumption,
                "published for men and women only; no weight is guessed"),
            w(
                .bodyMassIndex, "other." + BodyMassIndexClass.obese.rawValue, 1.0, .assumption,
                "published for men and women only; no weight is guessed"),
            w(.bodyMassIndex, notAnswered, 1.0, .notWeighted, "not answered"),
            w(.intermittentSunExposure, "no", 1.0, .reference, g2 + " (low intermittent exposure)"),
            w(.intermittentSunExposure, "yes", 1.61, .pooledEstimate, g2 + " (high vs low intermittent exposure)"),
            w(.intermittentSunExposure, notAnswered, 1.0, .notWeighted, "not answered"),
            w(.sunbedUse, SunbedUse.never.rawValue, 1.0, .reference, boniol),
            w(.sunbedUse, SunbedUse.ever.rawValue, 1.20, .pooledEstimate, boniol + " (ever vs never)"),
            w(.sunbedUse, SunbedUse.firstBeforeAge35.rawValue, 1.87, .pooledEstimate, boniol + " (first use before age 35 vs never)"),
            w(.sunbedUse, notAnswered, 1.0, .notWeighted, "not answered"),
        ]
    }()

    static let relativeRiskByKey: [String: Double] = Dictionary(
        uniqueKeysWithValues: weights.map { ("\($0.factor.rawValue).\($0.level)", $0.relativeRisk) })

    /// Relative risk of one answer (`level` as in ``MelanomaRiskWeight/level``).
    public static func relativeRisk(_ factor: MelanomaRiskFactor, level: String) -> Double? {
        relativeRiskByKey["\(factor.rawValue).\(level)"]
    }

    public static func assess(_ input: MelanomaRiskInput) throws(DomainValidationError) -> MelanomaRiskProfile {
        var issues = IssueCollector()
        if let age = issues.require(input.age, "/age", allowed: IssueCollector.describe(plausibleAge, unit: "years")) {
            if (0..<plausibleAge.lowerBound).contains(age) {
                issues.add("/age", childMessage, allowed: IssueCollector.describe(plausibleAge, unit: "years"))
            } else {
                issues.check(age, in: plausibleAge, "/age", unit: "years")
            }
        }
        _ = issues.require(input.sex, "/sex", allowed: IssueCollector.oneOf(AdministrativeSex.self))
        if let type = issues.require(
            input.fitzpatrickSkinType, "/fitzpatrickSkinType", allowed: IssueCollector.describe(plausibleSkinType))
        {
            issues.check(type, in: plausibleSkinType, "/fitzpatrickSkinType")
        }
        _ = issues.require(input.eyeColour, "/eyeColour", allowed: IssueCollector.oneOf(EyeColour.self))
        _ = issues.require(input.hairColour, "/hairColour", allowed: IssueCollector.oneOf(HairColour.self))
        _ = issues.require(input.commonMoles, "/commonMoles", allowed: IssueCollector.oneOf(CommonMoleBand.self))
        if let count = issues.require(
            input.atypicalMoleCount, "/atypicalMoleCount", allowed: IssueCollector.describe(plausibleAtypicalMoleCount))
        {
            issues.check(count, in: plausibleAtypicalMoleCount, "/atypicalMoleCount")
        }
        _ = issues.require(input.freckling, "/freckling", allowed: IssueCollector.oneOf(FrecklingDensity.self))
        _ = issues.require(input.familyHistory, "/familyHistory", allowed: IssueCollector.oneOf(MelanomaFamilyHistory.self))
        _ = issues.require(
            input.personalHistory, "/personalHistory", allowed: IssueCollector.oneOf(PersonalSkinCancerHistory.self))
        _ = issues.require(
            input.immunosuppression, "/immunosuppression",
            allowed: "a list (possibly empty) of: " + ImmunosuppressionKind.allCases.map(\.rawValue).joined(separator: ", "))
        _ = issues.require(input.sunburnHistory, "/sunburnHistory", allowed: "true or false")
        if let bmi = input.bodyMassIndex { issues.check(bmi, in: plausibleBodyMassIndex, "/bodyMassIndex", unit: "kg/m²") }
        try issues.throwIfAny()

        guard let skinType = input.fitzpatrickSkinType, let eyes = input.eyeColour, let hair = input.hairColour,
            let moles = input.commonMoles, let atypical = input.atypicalMoleCount, let freckling = input.freckling,
            let family = input.familyHistory, let personal = input.personalHistory,
            let immunosuppression = input.immunosuppression, let sunburn = input.sunburnHistory, let sex = input.sex
        else { preconditionFailure("validated above") }

        let immunoLevel =
            immunosuppression.max { lhs, rhs in
                (relativeRisk(.immunosuppression, level: lhs.rawValue) ?? 1) < (relativeRisk(.immunosuppression, level: rhs.rawValue) ?? 1)
            }?.rawValue ?? "none"
        let answers: [(MelanomaRiskFactor, String)] = [
            (.age, "any"),
            (.sex, "any"),
            (.fitzpatrickSkinType, String(skinType)),
            (.eyeColour, eyes.rawValue),
            (.hairColour, hair.rawValue),
            (.commonMoles, moles.rawValue),
            (.atypicalMoleCount, atypical >= 5 ? "5+" : String(atypical)),
            (.freckling, freckling.rawValue),
            (.familyHistory, family.rawValue),
            (.personalHistory, personal.rawValue),
            (.immunosuppression, immunoLevel),
            (.sunburnHistory, sunburn ? "yes" : "no"),
            (.inflammatoryBowelDisease, input.inflammatoryBowelDisease?.rawValue ?? notAnswered),
            (.bodyMassIndex, input.bodyMassIndex.map { bmiLevel(BodyMassIndexClass($0), sex: sex) } ?? notAnswered),
            (.intermittentSunExposure, input.intermittentSunExposure.map { $0 ? "yes" : "no" } ?? notAnswered),
            (.sunbedUse, input.sunbedUse?.rawValue ?? notAnswered),
        ]

        var sumLog = 0.0
        var raising: [MelanomaRiskFactor] = []
        for (factor, level) in answers {
            guard let rr = relativeRisk(factor, level: level) else {
                preconditionFailure("weight table has no entry for \(factor.rawValue).\(level)")
            }
            sumLog += log(rr)
            if rr > 1 { raising.append(factor) }
        }
        let doublings = (sumLog / log(2.0)).rounded(.down)
        // bounded: a sum of logarithms of the weight table's finite relative risks, clamped to the score's range.
        let score = Int(min(Double(maximumScore), max(0, doublings)))
        var category = MelanomaRiskCategory.of(score: score)
        if personal == .melanoma { category = .higher }

        let tip: TipKey =
            switch category {
            case .lower: .melanomaLower
            case .medium: .melanomaMedium
            case .higher: .melanomaHigher
            }
        return MelanomaRiskProfile(
            category: category, score: score, selfExaminationIntervalMonths: category.selfExaminationIntervalMonths,
            professionalSkinCheckAdvised: category.professionalSkinCheckAdvised, raisingFactors: raising,
            unansweredFactors: answers.filter { $0.1 == notAnswered }.map(\.0), tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    /// The weight-table level of a body-mass index: one level below 25 kg/m², else the class for the stated sex.
    static func bmiLevel(_ bmiClass: BodyMassIndexClass, sex: AdministrativeSex) -> String {
        bmiClass == .below25 ? bmiClass.rawValue : "\(sex.rawValue).\(bmiClass.rawValue)"
    }
}
