/// US EPA Air Quality Index category (EPA-454/B-24-002, Table 1), ordered from best to worst.
public enum AirQualityCategory: String, Sendable, Codable, CaseIterable, Comparable {
    case good, moderate, unhealthyForSensitiveGroups, unhealthy, veryUnhealthy, hazardous

    /// The category of an index value: 0–50 good, 51–100 moderate, 101–150 unhealthy for sensitive groups,
    /// 151–200 unhealthy, 201–300 very unhealthy, 301 and above hazardous.
    public init(aqi: Int) {
        self =
            switch aqi {
            case ...50: .good
            case 51...100: .moderate
            case 101...150: .unhealthyForSensitiveGroups
            case 151...200: .unhealthy
            case 201...300: .veryUnhealthy
            default: .hazardous
            }
    }

    /// The standard colour (EPA-454/B-24-002, Table 2, RGB written as hex).
    public var colour: String {
        switch self {
        case .good: "#00E400"
        case .moderate: "#FFFF00"
        case .unhealthyForSensitiveGroups: "#FF7E00"
        case .unhealthy: "#FF0000"
        case .veryUnhealthy: "#8F3F97"
        case .hazardous: "#7E0023"
        }
    }

    public var tip: TipKey {
        switch self {
        case .good: .airQualityGood
        case .moderate: .airQualityModerate
        case .unhealthyForSensitiveGroups: .airQualityUnhealthyForSensitiveGroups
        case .unhealthy: .airQualityUnhealthy
        case .veryUnhealthy: .airQualityVeryUnhealthy
        case .hazardous: .airQualityHazardous
        }
    }

    /// 0 for the first band, one more for each worse one (what `EnvironmentAlertState` compares).
    public var rank: Int { declarationIndex }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension AirQualityCategory: DeclarationOrdered {}

/// A pollutant whose concentration gives a sub-index.
public enum AirPollutant: String, Sendable, Codable, CaseIterable {
    /// Fine particles, 24-hour average, µg/m³.
    case pm25
    /// Coarse particles, 24-hour average, µg/m³.
    case pm10
    /// Ozone, 8-hour average, ppb.
    case o3
}

/// An air-quality reading classified: the index, its category, and which pollutant decided it.
public struct AirQualityAssessment: Sendable, Equatable {
    public let aqi: Int
    public let category: AirQualityCategory
    /// The pollutant with the highest sub-index; nil when the feed's own AQI value decided.
    public let dominantPollutant: AirPollutant?

    public init(aqi: Int, category: AirQualityCategory, dominantPollutant: AirPollutant?) {
        self.aqi = aqi
        self.category = category
        self.dominantPollutant = dominantPollutant
    }
}

/// The US Air Quality Index from pollutant concentrations.
///
/// Source: US EPA, *Technical Assistance Document for the Reporting of Daily Air Quality – the Air Quality Index
/// (AQI)*, EPA-454/B-24-002, May 2024: Table 6 (breakpoints, with the PM2.5 breakpoints revised in 2024), Equation 1
/// and the truncation rules (p. 13).
///
/// - Concentrations are **truncated**, never rounded: PM2.5 to 0.1 µg/m³, PM10 to 1 µg/m³, ozone to 0.001 ppm
///   (1 ppb). The arithmetic is done in those integer units, so no floating-point edge moves a boundary.
/// - Equation 1: I = (I_hi − I_lo) / (BP_hi − BP_lo) × (C − BP_lo) + I_lo, rounded to the nearest integer (a
///   half rounds up, as in the document's worked example 125.5 → 126).
/// - The Hazardous row is one row, 301–500 (225.5–325.4 µg/m³ PM2.5, 425–604 µg/m³ PM10); above its top the same
///   slope continues (FAQ, p. 23).
/// - Ozone is the 8-hour average, whose table ends at 0.200 ppm: "8-hour O3 values do not define higher AQI values
///   (≥ 301)" (footnote 2). Caretide has no 1-hour value then, so an 8-hour ozone above 200 ppb is reported as AQI 301,
///   the lowest Hazardous value (a Caretide rule: the category is certain, the number is a floor).
/// - The AQI of a reading is the highest of its sub-indices and of the feed's own AQI value, if it sent one.
public enum AirQualityIndex {
    /// One row of Table 6 in the pollutant's integer unit.
    struct Breakpoint {
        let low: Int
        let high: Int
        let indexLow: Int
        let indexHigh: Int
    }

    /// Table 6, in tenths of µg/m³ (PM2.5), µg/m³ (PM10) and ppb (ozone, 8-hour).
    static func table(_ pollutant: AirPollutant) -> [Breakpoint] {
        let indices = [(0, 50), (51, 100), (101, 150), (151, 200), (201, 300), (301, 500)]
        let concentrations: [(Int, Int)] =
            switch pollutant {
            case .pm25: [(0, 90), (91, 354), (355, 554), (555, 1254), (1255, 2254), (2255, 3254)]
            case .pm10: [(0, 54), (55, 154), (155, 254), (255, 354), (355, 424), (425, 604)]
            case .o3: [(0, 54), (55, 70), (71, 85), (86, 105), (106, 200)]
            }
        return zip(concentrations, indices).map { Breakpoint(low: $0.0, high: $0.1, indexLow: $1.0, indexHigh: $1.1) }
    }

    /// The concentration in the table's integer unit, truncated as the document says.
    static func truncated(_ concentration: Double, _ pollutant: AirPollutant) -> Int {
        let scaled = pollutant == .pm25 ? concentration * 10 : concentration
        // 35.4 × 10 is 353.99999999999994 in binary floating point: a value that is an integer but for that error is
        // that integer, anything else is cut down.
        let nearest = scaled.rounded()
        // bounded: concentrations are checked finite and within the schema's maximum before they are truncated.
        return Int(abs(scaled - nearest) < 1e-9 ? nearest : scaled.rounded(.down))
    }

    /// The sub-index of one pollutant's concentration (already checked: finite, not negative).
    public static func subIndex(_ pollutant: AirPollutant, concentration: Double) -> Int {
        let value = truncated(concentration, pollutant)
        let rows = table(pollutant)
        if pollutant == .o3, value > rows[rows.count - 1].high { return 301 }
        // Above the top row the top row's slope continues.
        let row = rows.first { value <= $0.high } ?? rows[rows.count - 1]
        let numerator = (row.indexHigh - row.indexLow) * (value - row.low)
        let denominator = row.high - row.low
        // Rounded half up, in integers: floor((2n + d) / 2d).
        return row.indexLow + (2 * numerator + denominator) / (2 * denominator)
    }

    /// Classifies a reading: the feed's AQI value and/or concentrations (at least one).
    public static func assess(
        aqi reported: Double?, pm25: Double?, pm10: Double?, o3: Double?
    ) throws(DomainValidationError) -> AirQualityAssessment {
        var issues = IssueCollector()
        for (field, value, maximum) in [("/aqi", reported, 500.0), ("/pm25", pm25, 1000), ("/pm10", pm10, 2000), ("/o3", o3, 1000)] {
            guard let value else { continue }
            if !value.isFinite || value < 0 || value > maximum {
                issues.add(field, "must be between 0 and \(Int(maximum))", allowed: "0…\(Int(maximum))")
            }
        }
        if reported == nil, pm25 == nil, pm10 == nil, o3 == nil { issues.add("", "must give an AQI value or at least one concentration") }
        try issues.throwIfAny()

        // bounded: a reported AQI passed the checks above (finite, 0...500).
        var best: (aqi: Int, pollutant: AirPollutant?) = (reported.map { Int($0.rounded()) } ?? -1, nil)
        for (pollutant, concentration) in [(AirPollutant.pm25, pm25), (.pm10, pm10), (.o3, o3)] {
            guard let concentration else { continue }
            let index = subIndex(pollutant, concentration: concentration)
            if index > best.aqi { best = (index, pollutant) }
        }
        return AirQualityAssessment(aqi: best.aqi, category: AirQualityCategory(aqi: best.aqi), dominantPollutant: best.pollutant)
    }
}
