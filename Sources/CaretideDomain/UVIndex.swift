public import Foundation

/// WHO Global Solar UV Index exposure category, ordered from least to most harmful.
///
/// Source: WHO, *Global Solar UV Index: A Practical Guide*, 2002 (WHO/SDE/OEH/02.2): Low below 3, Moderate 3 to
/// below 6, High 6 to below 8, Very high 8 to below 11, Extreme 11 and above, with the guide's colours (green,
/// yellow, orange, red, purple). Values are reported to one decimal; the bands are closed below and open above.
public enum UVIndexCategory: String, Sendable, Codable, CaseIterable, Comparable {
    case low, moderate, high, veryHigh, extreme

    public init(uvIndex: Double) {
        self =
            switch uvIndex {
            case ..<3: .low
            case ..<6: .moderate
            case ..<8: .high
            case ..<11: .veryHigh
            default: .extreme
            }
    }

    /// The guide's colour name for the band.
    public var colour: String {
        switch self {
        case .low: "green"
        case .moderate: "yellow"
        case .high: "orange"
        case .veryHigh: "red"
        case .extreme: "purple"
        }
    }

    public var tip: TipKey {
        switch self {
        case .low: .uvLow
        case .moderate: .uvModerate
        case .high: .uvHigh
        case .veryHigh: .uvVeryHigh
        case .extreme: .uvExtreme
        }
    }

    /// 0 for the first band, one more for each worse one (what `EnvironmentAlertState` compares).
    public var rank: Int { declarationIndex }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension UVIndexCategory: DeclarationOrdered {}

/// When the sun is highest, which is when UV is strongest.
///
/// Source: NOAA Global Monitoring Laboratory, *General Solar Position Calculations*
/// (https://gml.noaa.gov/grad/solcalc/solareqns.PDF): fractional year γ = 2π/365 × (day of year − 1 + (hour − 12)/24)
/// (366 in leap years); equation of time (minutes) = 229.18 × (0.000075 + 0.001868 cos γ − 0.032077 sin γ
/// − 0.014615 cos 2γ − 0.040849 sin 2γ); solar noon = 720 − 4 × longitude − equation of time, in minutes after UTC
/// midnight, longitude positive east. NOAA calls these low-accuracy equations; they are good to about a minute
/// away from the poles, far finer than an alert needs.
public enum SolarNoon {
    /// Solar noon of the calendar day `day` (year, month, day) at `longitude`, as an instant.
    public static func on(year: Int, month: Int, day: Int, longitude: Double) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            let dayOfYear = calendar.ordinality(of: .day, in: .year, for: midnight),
            let daysInYear = calendar.range(of: .day, in: .year, for: midnight)?.count
        else { return nil }
        // At noon (hour 12) the hour term is zero.
        let gamma = 2 * Double.pi / Double(daysInYear) * Double(dayOfYear - 1)
        let equationOfTime =
            229.18 * (0.000075 + 0.001868 * cos(gamma) - 0.032077 * sin(gamma) - 0.014615 * cos(2 * gamma) - 0.040849 * sin(2 * gamma))
        let minutes = 720 - 4 * longitude - equationOfTime
        return midnight.addingTimeInterval(minutes * 60)
    }

    /// Solar noon of the day `instant` falls on in `timeZone`, at `longitude`.
    public static func of(_ instant: Date, timeZone: TimeZone, longitude: Double) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        return on(year: year, month: month, day: day, longitude: longitude)
    }
}
