public import Foundation

/// An area environmental readings are reported for, registered (or changed) by an operator (ingest-service →
/// `caretide.environment`, keyed by area code).
public struct AreaRegistered: EventPayload {
    public static let eventType = EventType.areaRegistered

    public var areaCode: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// An IANA time zone, e.g. `Europe/Lisbon`: when the area's day begins, for daily maxima and reminders.
    public var timeZone: String

    public init(areaCode: String, name: String, latitude: Double, longitude: Double, timeZone: String) {
        self.areaCode = areaCode
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timeZone = timeZone
    }

    public var partitionKey: String? { areaCode }
}

/// The UV index of an area (WHO Global Solar UV Index), from an operator's feed.
public struct UVIndexRecorded: EventPayload {
    public static let eventType = EventType.uvIndexRecorded

    public var areaCode: String
    public var observedAt: Date
    /// The index now.
    public var uvIndex: Double
    /// The day's forecast or observed maximum, when the feed gives it.
    public var dailyMax: Double?
    /// Solar noon of the day, when the feed gives it (the UV index peaks around it).
    public var solarNoon: Date?

    public init(areaCode: String, observedAt: Date, uvIndex: Double, dailyMax: Double? = nil, solarNoon: Date? = nil) {
        self.areaCode = areaCode
        self.observedAt = observedAt
        self.uvIndex = uvIndex
        self.dailyMax = dailyMax
        self.solarNoon = solarNoon
    }

    public var partitionKey: String? { areaCode }
}

/// The air quality of an area, from an operator's feed: a US AQI value (EPA, 0–500), or the concentrations it is
/// computed from, or both.
public struct AirQualityRecorded: EventPayload {
    public static let eventType = EventType.airQualityRecorded

    public var areaCode: String
    public var observedAt: Date
    public var aqi: Double?
    /// PM2.5, µg/m³ (24-hour average as the feed reports it).
    public var pm25: Double?
    /// PM10, µg/m³.
    public var pm10: Double?
    /// Ozone, ppb.
    public var o3: Double?

    public init(areaCode: String, observedAt: Date, aqi: Double? = nil, pm25: Double? = nil, pm10: Double? = nil, o3: Double? = nil) {
        self.areaCode = areaCode
        self.observedAt = observedAt
        self.aqi = aqi
        self.pm25 = pm25
        self.pm10 = pm10
        self.o3 = o3
    }

    public var partitionKey: String? { areaCode }
}

/// A patient subscribed to an area's UV and air-quality alerts, or left them (notification-service →
/// `caretide.environment`, keyed by the patient): scoring keeps which areas each patient follows for their report.
public struct EnvironmentSubscriptionChanged: EventPayload {
    public static let eventType = EventType.environmentSubscriptionChanged

    public var areaCode: String
    public var subscribed: Bool
    public var changedAt: Date

    public init(areaCode: String, subscribed: Bool, changedAt: Date) {
        self.areaCode = areaCode
        self.subscribed = subscribed
        self.changedAt = changedAt
    }
}
