public import Foundation

/// A patient's thresholds for UV and air-quality alerts, from what they chose or from who they are.
///
/// Defaults (Caretide conventions, each on its source's own scale):
/// - UV index 6, where the WHO guide's High band begins; 3 (Moderate, where the WHO guide says protection is
///   required) for Fitzpatrick skin types I and II, which burn easily (Fitzpatrick TB, Arch Dermatol
///   1988;124(6):869–871).
/// - US AQI 101, where EPA's "Unhealthy for Sensitive Groups" begins; 51 (Moderate, whose cautionary statement
///   addresses "unusually sensitive people") for people with asthma, COPD or heart disease, the groups EPA names as
///   sensitive to particles and ozone (EPA-454/B-24-002, Tables 4 and 5).
/// A threshold the patient sets replaces the default.
public struct EnvironmentThresholds: Sendable, Equatable {
    public static let defaultUVIndex = 6.0
    public static let sensitiveSkinUVIndex = 3.0
    public static let defaultAQI = 101
    public static let sensitiveAQI = 51

    public let uvIndex: Double
    public let aqi: Int

    public init(uvIndex chosenUV: Double? = nil, aqi chosenAQI: Int? = nil, fitzpatrickSkinType: Int? = nil, conditions: Set<SensitiveCondition> = [])
    {
        uvIndex = chosenUV ?? ((fitzpatrickSkinType ?? 3) <= 2 ? Self.sensitiveSkinUVIndex : Self.defaultUVIndex)
        aqi = chosenAQI ?? (conditions.isEmpty ? Self.defaultAQI : Self.sensitiveAQI)
    }
}

/// Conditions that make a person sensitive to air pollution (EPA-454/B-24-002, Table 4).
public enum SensitiveCondition: String, Sendable, Codable, CaseIterable {
    case asthma, copd, heartDisease
}

/// Alert fatigue for one recipient and one kind of environmental alert (UV, air quality), as a state machine:
/// - crossing the threshold alerts, with the category;
/// - while above, a higher category alerts again at once; the same or a lower one does not;
/// - at most one alert per local day unless the category rises: falling below and crossing again the same day is
///   not repeated, nor within `cooldown` of the last alert;
/// - falling below after an alert sends one all-clear (never two in a row, never without an alert before).
public struct EnvironmentAlertState: Sendable, Equatable, Codable {
    /// Whether the last reading was at or above the threshold.
    public var above: Bool
    /// The last alert's category (its rank, higher is worse), time and local day (yyyy-MM-dd).
    public var lastAlertLevel: Int?
    public var lastAlertAt: Date?
    public var lastAlertDay: String?
    /// Whether the last alert has been followed by its all-clear.
    public var cleared: Bool

    public init(above: Bool = false, lastAlertLevel: Int? = nil, lastAlertAt: Date? = nil, lastAlertDay: String? = nil, cleared: Bool = true) {
        self.above = above
        self.lastAlertLevel = lastAlertLevel
        self.lastAlertAt = lastAlertAt
        self.lastAlertDay = lastAlertDay
        self.cleared = cleared
    }

    public enum Decision: Sendable, Equatable {
        case alert(rising: Bool)
        case allClear
        case none
    }

    public static let cooldown: TimeInterval = 3 * 3600

    /// The decision for a reading of category rank `level`, at or above the threshold or not, taken `now` on the
    /// recipient's local `day`; `self` becomes the state after it.
    public mutating func decide(level: Int, aboveThreshold: Bool, now: Date, day: String, cooldown: TimeInterval = Self.cooldown) -> Decision {
        defer { above = aboveThreshold }
        guard aboveThreshold else {
            guard !cleared else { return .none }
            cleared = true
            return .allClear
        }
        let decision: Decision
        if let lastLevel = lastAlertLevel, let lastAt = lastAlertAt {
            if level > lastLevel && (above || lastAlertDay == day) {
                decision = .alert(rising: true)
            } else if above || lastAlertDay == day || now.timeIntervalSince(lastAt) < cooldown {
                return .none
            } else {
                decision = .alert(rising: false)
            }
        } else {
            decision = .alert(rising: false)
        }
        lastAlertLevel = level
        lastAlertAt = now
        lastAlertDay = day
        cleared = false
        return decision
    }
}
