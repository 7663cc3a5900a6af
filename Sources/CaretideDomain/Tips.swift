/// Stable keys of the plain-language tips. The raw value is what gets stored and sent in events
/// (e.g. `"bloodPressure.stage1"`); never rename one without bumping ``RuleSetVersion``.
public enum TipKey: String, Sendable, Codable, CaseIterable {
    case bloodPressureNormal = "bloodPressure.normal"
    case bloodPressureElevated = "bloodPressure.elevated"
    case bloodPressureStage1 = "bloodPressure.stage1"
    case bloodPressureStage2 = "bloodPressure.stage2"
    case bloodPressureCrisis = "bloodPressure.crisis"

    case pulseSevereBradycardia = "pulse.severeBradycardia"
    case pulseBradycardia = "pulse.bradycardia"
    case pulseNormal = "pulse.normal"
    case pulseTachycardia = "pulse.tachycardia"
    case pulseSevereTachycardia = "pulse.severeTachycardia"

    case bmiUnderweight = "bmi.underweight"
    case bmiNormal = "bmi.normal"
    case bmiOverweight = "bmi.overweight"
    case bmiObeseClassI = "bmi.obeseClassI"
    case bmiObeseClassII = "bmi.obeseClassII"
    case bmiObeseClassIII = "bmi.obeseClassIII"

    case glucoseHypoglycaemiaLevel2 = "glucose.hypoglycaemiaLevel2"
    case glucoseHypoglycaemiaLevel1 = "glucose.hypoglycaemiaLevel1"
    case glucoseNormal = "glucose.normal"
    case glucosePrediabetes = "glucose.prediabetes"
    case glucoseDiabetesRange = "glucose.diabetesRange"

    case totalCholesterolDesirable = "lipids.totalCholesterol.desirable"
    case totalCholesterolBorderlineHigh = "lipids.totalCholesterol.borderlineHigh"
    case totalCholesterolHigh = "lipids.totalCholesterol.high"
    case ldlOptimal = "lipids.ldl.optimal"
    case ldlNearOptimal = "lipids.ldl.nearOptimal"
    case ldlBorderlineHigh = "lipids.ldl.borderlineHigh"
    case ldlHigh = "lipids.ldl.high"
    case ldlVeryHigh = "lipids.ldl.veryHigh"
    case hdlLow = "lipids.hdl.low"
    case hdlNormal = "lipids.hdl.normal"
    case hdlHigh = "lipids.hdl.high"
    case triglyceridesNormal = "lipids.triglycerides.normal"
    case triglyceridesBorderlineHigh = "lipids.triglycerides.borderlineHigh"
    case triglyceridesHigh = "lipids.triglycerides.high"
    case triglyceridesVeryHigh = "lipids.triglycerides.veryHigh"

    case npiExcellent = "npi.excellent"
    case npiGood = "npi.good"
    case npiModerate = "npi.moderate"
    case npiPoor = "npi.poor"

    case melanomaLower = "melanoma.lower"
    case melanomaMedium = "melanoma.medium"
    case melanomaHigher = "melanoma.higher"

    case lesionPhotoSuspicious = "lesionPhoto.suspicious"
    case lesionPhotoUncertain = "lesionPhoto.uncertain"
    case lesionPhotoNotSuspicious = "lesionPhoto.notSuspicious"

    case labNormal = "lab.normal"
    case labLow = "lab.low"
    case labHigh = "lab.high"
    case labCriticalLow = "lab.criticalLow"
    case labCriticalHigh = "lab.criticalHigh"

    case trendSustainedStage2BloodPressure = "trend.sustainedStage2BloodPressure"
    case trendRisingFastingGlucose = "trend.risingFastingGlucose"
    case trendNPIGroupWorsened = "trend.npiGroupWorsened"
    case trendNPIGroupImproved = "trend.npiGroupImproved"
    case trendPersistentHighSodium = "trend.persistentHighSodium"

    case uvLow = "uv.low"
    case uvModerate = "uv.moderate"
    case uvHigh = "uv.high"
    case uvVeryHigh = "uv.veryHigh"
    case uvExtreme = "uv.extreme"
    case uvAllClear = "uv.allClear"

    case airQualityGood = "airQuality.good"
    case airQualityModerate = "airQuality.moderate"
    case airQualityUnhealthyForSensitiveGroups = "airQuality.unhealthyForSensitiveGroups"
    case airQualityUnhealthy = "airQuality.unhealthy"
    case airQualityVeryUnhealthy = "airQuality.veryUnhealthy"
    case airQualityHazardous = "airQuality.hazardous"
    case airQualityAllClear = "airQuality.allClear"

    case nutritionSodiumAbove = "nutrition.sodiumAbove"
    case nutritionSodiumFarAbove = "nutrition.sodiumFarAbove"
    case nutritionSugarsPossiblyAbove = "nutrition.sugarsPossiblyAbove"
    case nutritionFreeSugarsAbove = "nutrition.freeSugarsAbove"
    case nutritionSaturatedFatAbove = "nutrition.saturatedFatAbove"
    case nutritionEnergyBelow = "nutrition.energyBelow"
    case nutritionEnergyAbove = "nutrition.energyAbove"
    case nutritionProteinBelow = "nutrition.proteinBelow"
    case nutritionWithinLimits = "nutrition.withinLimits"
}

/// A category enum whose cases have a translatable display label in ``Tips/categoryLabelsEnglish``.
public protocol LabelledCategory: RawRepresentable, CaseIterable where RawValue == String {
    /// Namespace of the label keys, e.g. `"bloodPressureCategory"`.
    static var labelNamespace: String { get }
}

extension LabelledCategory {
    /// Key into ``Tips/categoryLabelsEnglish``, e.g. `"bloodPressureCategory.stage1Hypertension"`.
    public var labelKey: String { "\(Self.labelNamespace).\(rawValue)" }
}

extension Severity: LabelledCategory { public static var labelNamespace: String { "severity" } }
extension BloodPressureCategory: LabelledCategory { public static var labelNamespace: String { "bloodPressureCategory" } }
extension PulseCategory: LabelledCategory { public static var labelNamespace: String { "pulseCategory" } }
extension BodyMassIndexCategory: LabelledCategory { public static var labelNamespace: String { "bodyMassIndexCategory" } }
extension GlucoseCategory: LabelledCategory { public static var labelNamespace: String { "glucoseCategory" } }
extension TotalCholesterolCategory: LabelledCategory { public static var labelNamespace: String { "totalCholesterolCategory" } }
extension LDLCholesterolCategory: LabelledCategory { public static var labelNamespace: String { "ldlCholesterolCategory" } }
extension HDLCholesterolCategory: LabelledCategory { public static var labelNamespace: String { "hdlCholesterolCategory" } }
extension TriglycerideCategory: LabelledCategory { public static var labelNamespace: String { "triglycerideCategory" } }
extension NPIPrognosticGroup: LabelledCategory { public static var labelNamespace: String { "npiPrognosticGroup" } }
extension MelanomaRiskCategory: LabelledCategory { public static var labelNamespace: String { "melanomaRiskCategory" } }
extension LesionPhotoCategory: LabelledCategory { public static var labelNamespace: String { "lesionPhotoCategory" } }
extension InterpretationCode: LabelledCategory { public static var labelNamespace: String { "interpretationCode" } }
extension UVIndexCategory: LabelledCategory { public static var labelNamespace: String { "uvIndexCategory" } }
extension AirQualityCategory: LabelledCategory { public static var labelNamespace: String { "airQualityCategory" } }

/// All user-facing English text of the module, in one place, keyed — so it can be translated as data.
///
/// A translation is another table with the same keys; `TipsTests` checks that the English tables are complete.
public enum Tips {
    /// Plain-language tip for each ``TipKey``.
    public static let english: [TipKey: String] = [
        .bloodPressureNormal: "Your blood pressure is in the healthy range. Keep up your healthy habits.",
        .bloodPressureElevated:
            "Your blood pressure is a little above the healthy range. Less salt, regular activity and limiting alcohol can help bring it down.",
        .bloodPressureStage1:
            "Your blood pressure is high (stage 1). Please discuss it with your doctor or nurse at your next visit.",
        .bloodPressureStage2:
            "Your blood pressure is high (stage 2). Please contact your doctor or nurse soon to talk about treatment.",
        .bloodPressureCrisis:
            "Your blood pressure is very high. Sit quietly for a few minutes and measure again. If it stays this high, or you have chest pain, shortness of breath, weakness, trouble speaking or changes in vision, call emergency services now.",

        .pulseSevereBradycardia:
            "Your resting pulse is very slow. If you feel dizzy, faint, short of breath or have chest pain, get medical help now; otherwise contact your doctor today.",
        .pulseBradycardia:
            "Your resting pulse is slower than usual. This can be normal if you are very fit. Tell your doctor if you feel dizzy, tired or faint.",
        .pulseNormal: "Your resting pulse is in the normal range.",
        .pulseTachycardia:
            "Your resting pulse is faster than usual. Rest for a few minutes and measure again. Tell your doctor if it stays high.",
        .pulseSevereTachycardia:
            "Your resting pulse is very fast. If you feel unwell, dizzy, short of breath or have chest pain, get medical help now; otherwise contact your doctor today.",

        .bmiUnderweight:
            "Your weight is below the healthy range for your height. Talk to your doctor or a dietitian about healthy ways to gain weight.",
        .bmiNormal: "Your weight is in the healthy range for your height.",
        .bmiOverweight:
            "Your weight is above the healthy range for your height. Small changes in food and activity can make a difference.",
        .bmiObeseClassI:
            "Your weight is well above the healthy range for your height. Your doctor can help you make a plan to reach a healthier weight.",
        .bmiObeseClassII:
            "Your weight is far above the healthy range for your height. Please talk to your doctor about support to reach a healthier weight.",
        .bmiObeseClassIII:
            "Your weight is very far above the healthy range for your height. Please talk to your doctor about the support and treatment options available.",

        .glucoseHypoglycaemiaLevel2:
            "Your blood sugar is dangerously low. Take fast-acting sugar now (for example juice or glucose tablets) and get help. If you cannot eat or drink safely, someone should call emergency services.",
        .glucoseHypoglycaemiaLevel1:
            "Your blood sugar is low. Take some fast-acting sugar, check again in 15 minutes and tell your care team.",
        .glucoseNormal: "Your blood sugar is in the normal range.",
        .glucosePrediabetes:
            "Your blood sugar is higher than normal. Healthy food choices, activity and weight loss can lower your risk of diabetes. Discuss it with your doctor.",
        .glucoseDiabetesRange:
            "Your blood sugar is in the range seen in diabetes. A single result is not a diagnosis; please see your doctor for a repeat test.",

        .totalCholesterolDesirable: "Your total cholesterol is in the desirable range.",
        .totalCholesterolBorderlineHigh:
            "Your total cholesterol is a little high. Eating less saturated fat and being more active can help.",
        .totalCholesterolHigh: "Your total cholesterol is high. Please discuss it with your doctor.",
        .ldlOptimal: "Your LDL (\"bad\") cholesterol is at a good level.",
        .ldlNearOptimal: "Your LDL (\"bad\") cholesterol is near the ideal level.",
        .ldlBorderlineHigh:
            "Your LDL (\"bad\") cholesterol is a little high. Eating less saturated fat and being more active can help.",
        .ldlHigh: "Your LDL (\"bad\") cholesterol is high. Please discuss it with your doctor.",
        .ldlVeryHigh: "Your LDL (\"bad\") cholesterol is very high. Please see your doctor soon to discuss treatment.",
        .hdlLow:
            "Your HDL (\"good\") cholesterol is low. Regular activity, not smoking and a healthy weight can raise it.",
        .hdlNormal: "Your HDL (\"good\") cholesterol is in the usual range.",
        .hdlHigh: "Your HDL (\"good\") cholesterol is at a protective level.",
        .triglyceridesNormal: "Your triglycerides (blood fats) are in the normal range.",
        .triglyceridesBorderlineHigh:
            "Your triglycerides (blood fats) are a little high. Cutting down on sugar and alcohol can help.",
        .triglyceridesHigh: "Your triglycerides (blood fats) are high. Please discuss them with your doctor.",
        .triglyceridesVeryHigh:
            "Your triglycerides (blood fats) are very high. Please see your doctor soon; very high levels can harm the pancreas.",

        .npiExcellent:
            "Your tumour results place you in the group with the best outlook. Your care team will explain what this means for your treatment.",
        .npiGood:
            "Your tumour results place you in a group with a good outlook. Your care team will explain what this means for your treatment.",
        .npiModerate:
            "Your tumour results place you in a group with a moderate outlook. Your care team will talk with you about the treatment options.",
        .npiPoor:
            "Your tumour results place you in a group that needs more intensive treatment. Your care team will talk with you about the options and support available.",

        .melanomaLower:
            "Your risk profile for melanoma is lower. Check your skin every 6 months and show any new or changing mole to your doctor.",
        .melanomaMedium:
            "Your risk profile for melanoma is medium. Check your skin once a month, protect it from the sun, and show any new or changing mole to your doctor.",
        .melanomaHigher:
            "Your risk profile for melanoma is higher. Check your skin once a month, protect it from the sun, and ask your doctor about a regular skin check every 6 to 12 months.",

        .lesionPhotoSuspicious:
            "The software that looked at this photo found signs that can belong to melanoma. Its result can be wrong, but please see a dermatologist soon; your care team has been told.",
        .lesionPhotoUncertain:
            "The software that looked at this photo could not tell with confidence whether this mole is harmless. Its result can be wrong: please show the mole to a dermatologist.",
        .lesionPhotoNotSuspicious:
            "The software that looked at this photo found no signs it associates with melanoma. Its result can be wrong: keep checking the mole, and see a doctor if it changes, itches or bleeds.",

        .labNormal: "This result is within the laboratory's reference range.",
        .labLow: "This result is below the laboratory's reference range. Your doctor will review it.",
        .labHigh: "This result is above the laboratory's reference range. Your doctor will review it.",
        .labCriticalLow: "This result is critically low. It needs prompt review by a clinician.",
        .labCriticalHigh: "This result is critically high. It needs prompt review by a clinician.",

        .trendSustainedStage2BloodPressure:
            "Your last readings have all been high (stage 2 or above). Please contact your doctor or nurse to review your treatment.",
        .trendRisingFastingGlucose:
            "Your fasting blood sugar has risen over your last three measurements. Please discuss it with your doctor.",
        .trendNPIGroupWorsened:
            "Your latest tumour assessment places you in a different prognosis group than before. Your care team will discuss it with you.",
        .trendNPIGroupImproved:
            "Your latest tumour assessment places you in a better prognosis group than before. Your care team will discuss it with you.",
        .trendPersistentHighSodium:
            "On most days this week you had more salt than recommended, and your blood pressure is high. Eating less salt can help lower it; your care team can help you make a plan.",

        // UV: the WHO guide's protection scheme (none below 3; protection from 3; extra protection from 8), with the
        // hours of strongest sun around solar noon.
        .uvLow: "The UV index is low. You can safely stay outside.",
        .uvModerate:
            "The UV index is moderate. Protect your skin around midday: seek shade, wear a shirt, hat and sunglasses, and use sunscreen (SPF 30 or more).",
        .uvHigh:
            "The UV index is high. Between 10:00 and 16:00 seek shade, wear a shirt, hat and sunglasses, and use sunscreen (SPF 30 or more) again every two hours.",
        .uvVeryHigh:
            "The UV index is very high. Avoid being outside between 10:00 and 16:00. If you must, stay in the shade and wear a shirt, hat, sunglasses and sunscreen.",
        .uvExtreme:
            "The UV index is extreme: unprotected skin can burn in minutes. Stay indoors or in the shade between 10:00 and 16:00; shirt, hat, sunglasses and sunscreen are a must.",
        .uvAllClear: "The UV index has fallen below your alert level.",
        // Air quality: EPA's cautionary statements (EPA-454/B-24-002, Table 5), for particles and ozone.
        .airQualityGood: "Air quality is good. It's a great day to be active outside.",
        .airQualityModerate:
            "Air quality is moderate. If you are unusually sensitive to air pollution, consider making outdoor activities shorter and less intense, and go inside if you have symptoms.",
        .airQualityUnhealthyForSensitiveGroups:
            "Air quality is unhealthy for sensitive groups. If you have heart or lung disease such as asthma, make outdoor activities shorter and less intense and take more breaks; keep your reliever medicine with you.",
        .airQualityUnhealthy:
            "Air quality is unhealthy. If you have heart or lung disease, consider moving activities inside; everyone else should reduce long or intense outdoor activity.",
        .airQualityVeryUnhealthy:
            "Air quality is very unhealthy. If you have heart or lung disease, avoid physical activity outdoors; everyone else should limit it.",
        .airQualityHazardous:
            "Air quality is hazardous. Everyone should avoid physical activity outdoors; if you have heart or lung disease, stay indoors and keep activity light.",
        .airQualityAllClear: "Air quality has improved below your alert level.",

        // Nutrition: a day's meals against the WHO limits (salt, free sugars, saturated fat) and the US reference
        // intakes (energy, protein). Total sugars include those of fruit and milk, so the sugars text says "may".
        .nutritionSodiumAbove:
            "You had more salt that day than is recommended. Choosing fresh foods over processed ones, and tasting before you add salt or salty sauces, can help.",
        .nutritionSodiumFarAbove:
            "You had more than twice the recommended salt that day. Too much salt raises blood pressure: try fresh foods instead of processed ones, and talk to your doctor or a dietitian if this happens often.",
        .nutritionSugarsPossiblyAbove:
            "Your food that day was high in sugars, so the added sugar may have been more than recommended. Water instead of sweet drinks, and fruit instead of sweets, can help.",
        .nutritionFreeSugarsAbove:
            "By our estimate, more of your energy came from free sugars that day than is recommended: sugar added to food and drinks, and the sugars in juice, honey and syrups (not those in whole fruit or plain milk). Water instead of sweet drinks, and whole fruit instead of juice or sweets, can help.",
        .nutritionSaturatedFatAbove:
            "More of your energy came from saturated fat that day than is recommended. Lean meat, low-fat dairy and vegetable oils instead of butter or fatty meat can help.",
        .nutritionEnergyBelow:
            "You ate noticeably less that day than a person of your age and sex usually needs. If this happens often, or you are losing weight without trying, talk to your doctor.",
        .nutritionEnergyAbove:
            "You ate noticeably more that day than a person of your age and sex usually needs. Now and then that is fine; if it happens often, smaller portions and more activity can help.",
        .nutritionProteinBelow:
            "You had less protein that day than recommended. Beans, lentils, fish, eggs, dairy, nuts or lean meat can help you get enough.",
        .nutritionWithinLimits: "That day you stayed within the recommended limits for salt, sugars and saturated fat. Well done.",
    ]

    /// Display labels for every ``LabelledCategory`` case, keyed by ``LabelledCategory/labelKey``.
    public static let categoryLabelsEnglish: [String: String] = [
        "severity.normal": "Normal",
        "severity.attention": "Needs attention",
        "severity.urgent": "Urgent",

        "bloodPressureCategory.normal": "Normal",
        "bloodPressureCategory.elevated": "Elevated",
        "bloodPressureCategory.stage1Hypertension": "High blood pressure (stage 1)",
        "bloodPressureCategory.stage2Hypertension": "High blood pressure (stage 2)",
        "bloodPressureCategory.hypertensiveCrisis": "Very high blood pressure (hypertensive crisis)",

        "pulseCategory.severeBradycardia": "Very slow pulse",
        "pulseCategory.bradycardia": "Slow pulse",
        "pulseCategory.normal": "Normal pulse",
        "pulseCategory.tachycardia": "Fast pulse",
        "pulseCategory.severeTachycardia": "Very fast pulse",

        "bodyMassIndexCategory.underweight": "Underweight",
        "bodyMassIndexCategory.normal": "Healthy weight",
        "bodyMassIndexCategory.overweight": "Overweight",
        "bodyMassIndexCategory.obeseClassI": "Obesity (class I)",
        "bodyMassIndexCategory.obeseClassII": "Obesity (class II)",
        "bodyMassIndexCategory.obeseClassIII": "Obesity (class III)",

        "glucoseCategory.hypoglycaemiaLevel2": "Very low blood sugar",
        "glucoseCategory.hypoglycaemiaLevel1": "Low blood sugar",
        "glucoseCategory.normal": "Normal",
        "glucoseCategory.prediabetes": "Higher than normal (prediabetes range)",
        "glucoseCategory.diabetesRange": "Diabetes range",

        "totalCholesterolCategory.desirable": "Desirable",
        "totalCholesterolCategory.borderlineHigh": "Borderline high",
        "totalCholesterolCategory.high": "High",
        "ldlCholesterolCategory.optimal": "Optimal",
        "ldlCholesterolCategory.nearOptimal": "Near optimal",
        "ldlCholesterolCategory.borderlineHigh": "Borderline high",
        "ldlCholesterolCategory.high": "High",
        "ldlCholesterolCategory.veryHigh": "Very high",
        "hdlCholesterolCategory.low": "Low",
        "hdlCholesterolCategory.normal": "Normal",
        "hdlCholesterolCategory.high": "High (protective)",
        "triglycerideCategory.normal": "Normal",
        "triglycerideCategory.borderlineHigh": "Borderline high",
        "triglycerideCategory.high": "High",
        "triglycerideCategory.veryHigh": "Very high",

        "npiPrognosticGroup.excellent": "Excellent prognosis group",
        "npiPrognosticGroup.good": "Good prognosis group",
        "npiPrognosticGroup.moderate": "Moderate prognosis group",
        "npiPrognosticGroup.poor": "Poor prognosis group",

        "melanomaRiskCategory.lower": "Lower",
        "melanomaRiskCategory.medium": "Medium",
        "melanomaRiskCategory.higher": "Higher",
        "lesionPhotoCategory.suspicious": "Suspicious",
        "lesionPhotoCategory.uncertain": "Uncertain",
        "lesionPhotoCategory.notSuspicious": "Not suspicious",

        "interpretationCode.N": "Normal",
        "interpretationCode.L": "Low",
        "interpretationCode.H": "High",
        "interpretationCode.LL": "Critically low",
        "interpretationCode.HH": "Critically high",

        "uvIndexCategory.low": "Low",
        "uvIndexCategory.moderate": "Moderate",
        "uvIndexCategory.high": "High",
        "uvIndexCategory.veryHigh": "Very high",
        "uvIndexCategory.extreme": "Extreme",

        "airQualityCategory.good": "Good",
        "airQualityCategory.moderate": "Moderate",
        "airQualityCategory.unhealthyForSensitiveGroups": "Unhealthy for sensitive groups",
        "airQualityCategory.unhealthy": "Unhealthy",
        "airQualityCategory.veryUnhealthy": "Very unhealthy",
        "airQualityCategory.hazardous": "Hazardous",
    ]

    /// The text for `key` in `table`, falling back to English (and finally to the raw key) when a translation
    /// lacks it.
    public static func text(for key: TipKey, in table: [TipKey: String] = english) -> String {
        table[key] ?? english[key] ?? key.rawValue
    }

    /// The display label of a category case in `table`, falling back to English, then to the raw key.
    public static func label<C: LabelledCategory>(for category: C, in table: [String: String] = categoryLabelsEnglish)
        -> String
    {
        table[category.labelKey] ?? categoryLabelsEnglish[category.labelKey] ?? category.labelKey
    }
}

/// The user-facing texts of one language, keyed like ``Tips/english`` (tip keys) and ``Tips/categoryLabelsEnglish``
/// (label keys). A translation may leave keys out: each missing one is answered in English, never as a bare key.
public struct TipTexts: Sendable, Equatable {
    /// A BCP 47 language tag, e.g. `en` or `pt-BR`.
    public let language: String
    public let texts: [String: String]

    public init(language: String, texts: [String: String]) {
        self.language = language
        self.texts = texts
    }

    /// Every English text: tips, labels, the report's words and the inbox's.
    public static let english = TipTexts(
        language: "en",
        texts: Dictionary(uniqueKeysWithValues: Tips.english.map { ($0.key.rawValue, $0.value) }).merging(Tips.categoryLabelsEnglish) { a, _ in a }
            .merging(ReportWords.english) { a, _ in a }.merging(InboxWords.english) { a, _ in a })

    /// Every key a translation may give.
    public static var keys: Set<String> { Set(english.texts.keys) }

    /// The text of `key` in this language, else in English; nil for a key that has no text at all.
    public func text(_ key: String) -> String? { texts[key] ?? Self.english.texts[key] }
}
