import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// A UV or air-quality reading decided for an area's subscribers (`EnvironmentAlerting.decisions`): each against their
/// own threshold and alert state, in the area's local day, with replays skipped.
@Suite struct EnvironmentDecisionTests {
    static let eventID = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000e1")!
    static let raisedAt = utc("2026-07-01T12:00:05Z")
    /// Fitzpatrick type I: alerted from UV 3 (moderate).
    static let fair = EnvironmentThresholds(fitzpatrickSkinType: 1)

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func uv(_ value: Double, at observedAt: Date, peakAt: Date? = nil) -> EnvironmentAlerting.Reading {
        let category = UVIndexCategory(uvIndex: value)
        return EnvironmentAlerting.Reading(
            kind: .uvIndex, area: "lisbon", observedAt: observedAt, value: value, band: .uvIndex(category), rank: category.rank,
            severity: .attention, peakAt: peakAt, exceeds: { value >= $0.uvIndex })
    }

    static func subscriber(
        _ patientID: String, _ thresholds: EnvironmentThresholds, state: EnvironmentAlertState = EnvironmentAlertState(), last: Date? = nil
    ) -> EnvironmentStore.Subscriber {
        EnvironmentStore.Subscriber(patientID: patientID, thresholds: thresholds, state: state, lastObservedAt: last)
    }

    static func decide(_ reading: EnvironmentAlerting.Reading, _ subscribers: [EnvironmentStore.Subscriber])
        -> (notifications: [NotificationStore.Row], states: [(patientID: String, state: EnvironmentAlertState)])
    {
        EnvironmentAlerting.decisions(
            reading, for: subscribers, day: EnvironmentAlerting.localDay(reading.observedAt, TimeZone(identifier: "Europe/Lisbon")!),
            eventID: eventID, raisedAt: raisedAt)
    }

    @Test("each subscriber is judged against their own threshold: UV 4 alerts fair skin, not the default of 6")
    func ownThresholds() throws {
        let peak = Self.utc("2026-07-01T12:35:00Z")
        let decided = Self.decide(
            Self.uv(4, at: Self.utc("2026-07-01T11:00:00Z"), peakAt: peak),
            [Self.subscriber("p-fair", Self.fair), Self.subscriber("p-typical", EnvironmentThresholds())])
        #expect(decided.notifications.map(\.recipient) == [.init(id: "p-fair", role: .patient)])
        let alert = try #require(decided.notifications.first).alert
        #expect(alert.kind == "uvIndex" && alert.category == "moderate" && alert.severity == .attention)
        #expect(alert.areaCode == "lisbon" && alert.value == 4 && alert.peakAt == peak)
        #expect(alert.sourceEventID == Self.eventID && alert.aboutID == Self.eventID && alert.raisedAt == Self.raisedAt)
        // Both states are kept, the one not alerted too: it now knows the value is below its threshold.
        #expect(decided.states.map { $0.patientID } == ["p-fair", "p-typical"])
        #expect(decided.states.map { $0.state.above } == [true, false])
        #expect(decided.states.first?.state.lastAlertDay == "2026-07-01")
    }

    @Test("falling back below after an alert sends one all-clear, normal and without a peak; never without an alert before")
    func allClear() throws {
        let alerted = EnvironmentAlertState(
            above: true, lastAlertLevel: 1, lastAlertAt: Self.utc("2026-07-01T09:00:00Z"), lastAlertDay: "2026-07-01", cleared: false)
        let decided = Self.decide(
            Self.uv(2, at: Self.utc("2026-07-01T17:00:00Z"), peakAt: Self.utc("2026-07-01T12:35:00Z")),
            [Self.subscriber("p-alerted", Self.fair, state: alerted), Self.subscriber("p-quiet", Self.fair)])
        #expect(decided.notifications.map(\.recipient.id) == ["p-alerted"])
        let clear = try #require(decided.notifications.first).alert
        #expect(clear.kind == "uvIndex" && clear.category == "allClear" && clear.severity == .normal)
        #expect(clear.peakAt == nil && clear.value == 2)
        #expect(decided.states.map { $0.state.cleared } == [true, true])
    }

    @Test("an air-quality all-clear is air quality's")
    func airQualityAllClear() {
        let reading = EnvironmentAlerting.Reading(
            kind: .airQuality, area: "lisbon", observedAt: Self.utc("2026-07-01T17:00:00Z"), value: 40, band: .airQuality(.good),
            rank: AirQualityCategory.good.rank, severity: .attention, peakAt: nil, exceeds: { 40 >= $0.aqi })
        let alerted = EnvironmentAlertState(
            above: true, lastAlertLevel: 2, lastAlertAt: Self.utc("2026-07-01T09:00:00Z"), lastAlertDay: "2026-07-01", cleared: false)
        let decided = Self.decide(reading, [Self.subscriber("p-1", EnvironmentThresholds(), state: alerted)])
        #expect(decided.notifications.map(\.alert.kind) == ["airQuality"])
        #expect(decided.notifications.map(\.alert.category) == ["allClear"])
    }

    @Test("a reading no later than the last one decided for a subscriber (a replay, or out of order) changes nothing for them")
    func replays() {
        let observedAt = Self.utc("2026-07-01T11:00:00Z")
        let decided = Self.decide(
            Self.uv(9, at: observedAt),
            [
                Self.subscriber("p-same", Self.fair, last: observedAt),
                Self.subscriber("p-later", Self.fair, last: observedAt.addingTimeInterval(60)),
                Self.subscriber("p-earlier", Self.fair, last: observedAt.addingTimeInterval(-60)),
            ])
        #expect(decided.states.map { $0.patientID } == ["p-earlier"])
        #expect(decided.notifications.map(\.recipient.id) == ["p-earlier"])
    }

    @Test("over one day: an alert on crossing, a new one only when the band rises, one all-clear, and no second alert that day")
    func oneDay() throws {
        var subscriber = Self.subscriber("p-fair", Self.fair)
        var categories: [[String]] = []
        for (time, value) in [("09:00", 3.5), ("10:00", 5.0), ("11:00", 7.0), ("16:00", 2.0), ("17:00", 3.2)] {
            let observedAt = Self.utc("2026-07-01T\(time):00Z")
            let decided = Self.decide(Self.uv(value, at: observedAt), [subscriber])
            categories.append(decided.notifications.map(\.alert.category))
            let state = try #require(decided.states.first?.state)
            subscriber = Self.subscriber("p-fair", Self.fair, state: state, last: observedAt)
        }
        #expect(categories == [["moderate"], [], ["high"], ["allClear"], []])
    }

    @Test("the local day is the area's: late evening in Lisbon is already the next day, in New York not yet")
    func localDay() {
        let instant = Self.utc("2026-07-01T23:30:00Z")
        #expect(EnvironmentAlerting.localDay(instant, TimeZone(identifier: "Europe/Lisbon")!) == "2026-07-02")
        #expect(EnvironmentAlerting.localDay(instant, TimeZone(identifier: "America/New_York")!) == "2026-07-01")
        #expect(EnvironmentAlerting.localDay(Self.utc("2026-12-31T15:30:00Z"), TimeZone(identifier: "Asia/Tokyo")!) == "2027-01-01")
    }

    @Test("a subscription's thresholds in force: the chosen ones, else those of skin type and conditions; unknown conditions count for nothing")
    func effectiveThresholds() {
        let updatedAt = Self.utc("2026-07-01T08:00:00Z")
        let sensitive = EnvironmentStore.subscription(
            areaCode: "lisbon", uvIndex: true, airQuality: true, uvIndexThreshold: nil, aqiThreshold: nil, fitzpatrickSkinType: 2,
            conditions: ["asthma"], updatedAt: updatedAt)
        #expect(sensitive.effectiveUVIndexThreshold == 3 && sensitive.effectiveAQIThreshold == 51)
        let chosen = EnvironmentStore.subscription(
            areaCode: "lisbon", uvIndex: true, airQuality: true, uvIndexThreshold: 8, aqiThreshold: 150, fitzpatrickSkinType: 1,
            conditions: ["copd"], updatedAt: updatedAt)
        #expect(chosen.effectiveUVIndexThreshold == 8 && chosen.effectiveAQIThreshold == 150)
        let typical = EnvironmentStore.subscription(
            areaCode: "lisbon", uvIndex: true, airQuality: false, uvIndexThreshold: nil, aqiThreshold: nil, fitzpatrickSkinType: 3,
            conditions: ["hayFever"], updatedAt: updatedAt)
        #expect(typical.effectiveUVIndexThreshold == 6 && typical.effectiveAQIThreshold == 101)
        // What the patient sent is kept as sent, beside the thresholds in force.
        #expect(typical.conditions == ["hayFever"] && typical.uvIndexThreshold == nil)
    }
}
