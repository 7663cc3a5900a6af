import CaretideDomain
import Foundation
import PropertyBased
import Testing

/// US AQI (EPA-454/B-24-002), WHO UV index bands, solar noon (NOAA), thresholds, and the alert-fatigue state machine.
@Suite struct AirQualityIndexTests {
    @Test(
        "Golden table: every PM2.5 breakpoint of the 2024 revision, truncated to 0.1 µg/m³",
        arguments: [
            (0.0, 0), (9.0, 50), (9.09, 50), (9.1, 51), (35.4, 100), (35.49, 100), (35.5, 101), (55.4, 150), (55.5, 151),
            (125.4, 200), (125.5, 201), (225.4, 300), (225.5, 301), (325.4, 500),
        ])
    func pm25(concentration: Double, expected: Int) {
        #expect(AirQualityIndex.subIndex(.pm25, concentration: concentration) == expected)
    }

    @Test(
        "Golden table: every PM10 breakpoint, truncated to 1 µg/m³",
        arguments: [
            (0.0, 0), (54.0, 50), (54.9, 50), (55.0, 51), (154.0, 100), (155.0, 101), (254.0, 150), (255.0, 151), (354.0, 200), (355.0, 201),
            (424.0, 300), (425.0, 301), (604.0, 500),
        ])
    func pm10(concentration: Double, expected: Int) {
        #expect(AirQualityIndex.subIndex(.pm10, concentration: concentration) == expected)
    }

    @Test(
        "Golden table: every 8-hour ozone breakpoint in ppb (0.001 ppm); above 200 ppb the 8-hour table ends: Hazardous, 301",
        arguments: [
            (0.0, 0), (54.0, 50), (55.0, 51), (70.0, 100), (70.9, 100), (71.0, 101), (85.0, 150), (86.0, 151), (105.0, 200), (106.0, 201),
            (200.0, 300),
            (201.0, 301), (600.0, 301),
        ])
    func ozone(ppb: Double, expected: Int) {
        #expect(AirQualityIndex.subIndex(.o3, concentration: ppb) == expected)
    }

    @Test("EPA's worked example: 8-hour ozone 0.07853333 ppm is truncated to 0.078 and gives 125.5, reported 126")
    func workedExample() {
        #expect(AirQualityIndex.subIndex(.o3, concentration: 78.53333) == 126)
    }

    @Test("Above the top breakpoint the Hazardous slope continues")
    func beyondTheIndex() {
        #expect(AirQualityIndex.subIndex(.pm25, concentration: 425.4) == 699)
        #expect(AirQualityIndex.subIndex(.pm10, concentration: 784) == 700)
    }

    @Test(
        "Categories and colours at every band edge",
        arguments: [
            (0, AirQualityCategory.good), (50, .good), (51, .moderate), (100, .moderate), (101, .unhealthyForSensitiveGroups),
            (150, .unhealthyForSensitiveGroups),
            (151, .unhealthy), (200, .unhealthy), (201, .veryUnhealthy), (300, .veryUnhealthy), (301, .hazardous), (500, .hazardous),
        ])
    func categories(aqi: Int, expected: AirQualityCategory) {
        #expect(AirQualityCategory(aqi: aqi) == expected)
    }

    @Test("A reading's AQI is the highest of its sub-indices and the feed's own value, naming the pollutant that decided")
    func assess() throws {
        let particles = try AirQualityIndex.assess(aqi: nil, pm25: 40, pm10: 60, o3: 50)
        #expect(particles == AirQualityAssessment(aqi: 112, category: .unhealthyForSensitiveGroups, dominantPollutant: .pm25))
        let reported = try AirQualityIndex.assess(aqi: 160, pm25: 40, pm10: nil, o3: nil)
        #expect(reported.aqi == 160 && reported.category == .unhealthy && reported.dominantPollutant == nil)
        #expect(AirQualityCategory.hazardous.colour == "#7E0023" && AirQualityCategory.good.colour == "#00E400")
    }

    @Test("Impossible readings name every failing field")
    func refusals() {
        #expect(throws: DomainValidationError.self) { try AirQualityIndex.assess(aqi: nil, pm25: nil, pm10: nil, o3: nil) }
        do {
            _ = try AirQualityIndex.assess(aqi: 600, pm25: -1, pm10: .nan, o3: 10)
            Issue.record("accepted")
        } catch {
            #expect(Set(error.issues.map(\.field)) == ["/aqi", "/pm25", "/pm10"])
        }
    }

    @Test("Property: the index never falls as a concentration rises, and its category follows the index")
    func monotonic() async {
        await propertyCheck(input: Gen.int(in: 0...6_000), Gen.int(in: 0...50)) { tenths, step in
            for pollutant in AirPollutant.allCases {
                let lower = AirQualityIndex.subIndex(pollutant, concentration: Double(tenths) / 10)
                let higher = AirQualityIndex.subIndex(pollutant, concentration: Double(tenths + step) / 10)
                #expect(lower <= higher)
                #expect(AirQualityCategory(aqi: lower) <= AirQualityCategory(aqi: higher))
            }
        }
    }
}

@Suite struct UVIndexTests {
    @Test(
        "WHO bands at every edge",
        arguments: [
            (0.0, UVIndexCategory.low), (2.9, .low), (3.0, .moderate), (5.9, .moderate), (6.0, .high), (7.9, .high), (8.0, .veryHigh),
            (10.9, .veryHigh),
            (11.0, .extreme), (16.0, .extreme),
        ])
    func bands(uvIndex: Double, expected: UVIndexCategory) {
        #expect(UVIndexCategory(uvIndex: uvIndex) == expected)
    }

    @Test(
        "Solar noon follows the equation of time: 11:43:35 UTC at Greenwich on 3 November, 12:14:12 on 11 February (almanac values, within a minute)")
    func solarNoon() throws {
        func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        let november = try #require(SolarNoon.on(year: 2026, month: 11, day: 3, longitude: 0))
        #expect(abs(november.timeIntervalSince(utc("2026-11-03T11:43:35Z"))) < 60)
        let february = try #require(SolarNoon.on(year: 2026, month: 2, day: 11, longitude: 0))
        #expect(abs(february.timeIntervalSince(utc("2026-02-11T12:14:12Z"))) < 60)
        // 15° east is an hour earlier; the local day decides which day's noon it is.
        let vienna = try #require(SolarNoon.of(utc("2026-06-21T22:30:00Z"), timeZone: TimeZone(identifier: "Europe/Vienna")!, longitude: 16.37))
        #expect(vienna > utc("2026-06-22T10:50:00Z") && vienna < utc("2026-06-22T11:00:00Z"))
    }
}

@Suite struct EnvironmentAlertTests {
    @Test("Thresholds: WHO High and EPA's sensitive-groups band by default; fair skin and heart or lung disease lower them; a chosen value wins")
    func thresholds() {
        #expect(EnvironmentThresholds() == EnvironmentThresholds(uvIndex: 6, aqi: 101))
        #expect(EnvironmentThresholds(fitzpatrickSkinType: 1).uvIndex == 3 && EnvironmentThresholds(fitzpatrickSkinType: 2).uvIndex == 3)
        #expect(EnvironmentThresholds(fitzpatrickSkinType: 3).uvIndex == 6)
        #expect(EnvironmentThresholds(conditions: [.asthma]).aqi == 51 && EnvironmentThresholds(conditions: [.copd, .heartDisease]).aqi == 51)
        #expect(
            EnvironmentThresholds(uvIndex: 8, aqi: 151, fitzpatrickSkinType: 1, conditions: [.asthma]) == EnvironmentThresholds(uvIndex: 8, aqi: 151))
    }

    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("Crossing alerts once; a higher category alerts again; falling below sends one all-clear; crossing again the same day does not repeat")
    func scenario() {
        var state = EnvironmentAlertState()
        func at(_ minutes: Double) -> Date { Self.start.addingTimeInterval(minutes * 60) }
        #expect(state.decide(level: 1, aboveThreshold: false, now: at(0), day: "2026-11-23") == .none)
        #expect(state.decide(level: 2, aboveThreshold: true, now: at(10), day: "2026-11-23") == .alert(rising: false))
        #expect(state.decide(level: 2, aboveThreshold: true, now: at(20), day: "2026-11-23") == .none)
        #expect(state.decide(level: 3, aboveThreshold: true, now: at(30), day: "2026-11-23") == .alert(rising: true))
        #expect(state.decide(level: 1, aboveThreshold: false, now: at(40), day: "2026-11-23") == .allClear)
        #expect(state.decide(level: 1, aboveThreshold: false, now: at(50), day: "2026-11-23") == .none)
        #expect(state.decide(level: 2, aboveThreshold: true, now: at(300), day: "2026-11-23") == .none)
        #expect(state.decide(level: 1, aboveThreshold: false, now: at(310), day: "2026-11-23") == .none)
        // The next day, past the cool-down, it alerts again.
        #expect(state.decide(level: 2, aboveThreshold: true, now: at(24 * 60), day: "2026-11-24") == .alert(rising: false))
    }

    @Test("Property: alerts only at or above the threshold; never twice a day without a rise; all-clears only after an alert, never two in a row")
    func invariants() async {
        let reading = Gen.int(in: 0...4).array(of: 1...40)
        await propertyCheck(input: reading, Gen.int(in: 0...3), Gen.int(in: 1...600)) { levels, threshold, stepMinutes in
            var state = EnvironmentAlertState()
            var alerts: [(level: Int, day: Int)] = []
            var lastWasAlert = false
            for (index, level) in levels.enumerated() {
                let minutes = index * stepMinutes
                let day = minutes / 1440
                switch state.decide(
                    level: level, aboveThreshold: level >= threshold, now: Self.start.addingTimeInterval(Double(minutes * 60)), day: "day-\(day)")
                {
                case .alert:
                    #expect(level >= threshold)
                    if let last = alerts.last, last.day == day { #expect(level > last.level) }
                    alerts.append((level, day))
                    lastWasAlert = true
                case .allClear:
                    #expect(level < threshold && lastWasAlert)
                    lastWasAlert = false
                case .none:
                    break
                }
            }
        }
    }
}
