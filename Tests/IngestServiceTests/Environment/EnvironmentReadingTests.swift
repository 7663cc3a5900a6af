import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// Environmental readings from both sides: what an operator's feed may record (area codes, time zones, readings'
/// own checks) and what an app is shown of a stored reading (bands, colours, solar noon, the dominant pollutant), and
/// the point a "near me" query names.
@Suite struct EnvironmentReadingTests {
    static let now = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z
    static let lisbon = EnvironmentStore.Area(areaCode: "lisbon", name: "Lisbon", latitude: 38.72, longitude: -9.14, timeZone: "Europe/Lisbon")

    /// The pointers a refusal names, or nothing when it is accepted.
    static func refused<T>(_ work: () throws -> T) -> [String] {
        do {
            _ = try work()
            return []
        } catch let problem as HTTPProblem {
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    static func row(_ observedAt: String, _ members: [String: JSONValue]) throws -> EnvironmentStore.Reading {
        let date = try #require(Timestamp.parse(observedAt))
        return EnvironmentStore.Reading(observedAt: date, body: .object(members.merging(["observedAt": .string(observedAt)]) { old, _ in old }))
    }

    @Test("a UV reading of 0 at dawn on a day whose maximum is 12.67 is low, and its day extreme, each with its colour")
    func uvBands() throws {
        let dawn = try Self.row("2026-06-21T05:30:00Z", ["uvIndex": .number(0), "dailyMax": .number(12.67)])
        let reading = try #require(EnvironmentReads.uv(dawn, area: Self.lisbon))
        #expect(reading.uvIndex == 0 && reading.category == "low" && reading.colour == "green")
        #expect(reading.dailyMax == 12.67 && reading.dailyMaxCategory == "extreme" && reading.dailyMaxColour == "purple")
        let moderate = try #require(EnvironmentReads.uv(try Self.row("2026-06-21T09:00:00Z", ["uvIndex": .number(3)]), area: Self.lisbon))
        #expect(moderate.category == "moderate" && moderate.dailyMax == nil && moderate.dailyMaxCategory == nil && moderate.dailyMaxColour == nil)
    }

    @Test("without the feed's solar noon it is computed for the day the reading falls on in the area's zone")
    func solarNoonOfTheAreasDay() throws {
        // 23:30 UTC on the 20th is 00:30 on the 21st in Lisbon (UTC+1 in summer).
        let reading = try #require(EnvironmentReads.uv(try Self.row("2026-06-20T23:30:00Z", ["uvIndex": .number(0)]), area: Self.lisbon))
        let noonOf21st = try #require(SolarNoon.on(year: 2026, month: 6, day: 21, longitude: -9.14))
        #expect(reading.solarNoon == noonOf21st)
        #expect(reading.solarNoon != SolarNoon.on(year: 2026, month: 6, day: 20, longitude: -9.14))

        let sent = try Self.row("2026-06-21T10:00:00Z", ["uvIndex": .number(7), "solarNoon": .string("2026-06-21T13:35:00Z"), "ozone": .number(310)])
        let given = try #require(EnvironmentReads.uv(sent, area: Self.lisbon))
        #expect(given.solarNoon == Timestamp.parse("2026-06-21T13:35:00Z") && given.ozone == 310 && given.category == "high")

        let nowhere = EnvironmentStore.Area(areaCode: "x", name: "X", latitude: 0, longitude: 0, timeZone: "Nowhere/Atlantis")
        let unzoned = try #require(EnvironmentReads.uv(try Self.row("2026-06-21T10:00:00Z", ["uvIndex": .number(1)]), area: nowhere))
        #expect(unzoned.solarNoon == nil)
    }

    @Test("air quality: the feed's AQI alone, or the highest sub-index, which then names its pollutant")
    func airQuality() throws {
        let feed = try #require(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", ["aqi": .number(42)])))
        #expect(feed.aqi == 42 && feed.category == "good" && feed.colour == "#00E400" && feed.dominantPollutant == nil)

        // PM2.5 35.4 µg/m³ is the top of the moderate row (100); 35.5 the bottom of the next (101).
        let moderate = try #require(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", ["pm25": .number(35.4)])))
        #expect(moderate.aqi == 100 && moderate.category == "moderate" && moderate.dominantPollutant == "pm25")
        let sensitive = try #require(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", ["aqi": .number(42), "pm25": .number(35.5)])))
        #expect(sensitive.aqi == 101 && sensitive.category == "unhealthyForSensitiveGroups" && sensitive.dominantPollutant == "pm25")
        #expect(sensitive.pm25 == 35.5 && sensitive.pm10 == nil && sensitive.o3 == nil)

        // A sub-index no higher than the feed's own AQI leaves the feed's value in charge.
        let tie = try #require(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", ["aqi": .number(101), "pm25": .number(35.5)])))
        #expect(tie.aqi == 101 && tie.dominantPollutant == nil)
    }

    @Test("a stored row that is not a reading of the kind, or that the rule refuses, is left out rather than shown wrong")
    func unreadableRows() throws {
        #expect(EnvironmentReads.uv(try Self.row("2026-06-21T10:00:00Z", ["aqi": .number(42)]), area: Self.lisbon) == nil)
        #expect(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", [:])) == nil)
        #expect(EnvironmentReads.airQuality(try Self.row("2026-06-21T10:00:00Z", ["aqi": .number(501)])) == nil)
        #expect(EnvironmentReads.uv(EnvironmentStore.Reading(observedAt: Self.now, body: .string("uv")), area: Self.lisbon) == nil)
    }

    @Test("a point is a latitude from -90 to 90 and a longitude from -180 to 180, both finite numbers; each bad one is named")
    func point() throws {
        let (latitude, longitude) = try EnvironmentReads.point(latitude: "38.72", longitude: "-9.14")
        #expect(latitude == 38.72 && longitude == -9.14)
        let corner = try EnvironmentReads.point(latitude: "-90", longitude: "180")
        #expect(corner.0 == -90 && corner.1 == 180)
        #expect(Self.refused { try EnvironmentReads.point(latitude: "90.5", longitude: "0") } == ["/latitude"])
        #expect(Self.refused { try EnvironmentReads.point(latitude: "0", longitude: "-180.01") } == ["/longitude"])
        #expect(Self.refused { try EnvironmentReads.point(latitude: nil, longitude: "0") } == ["/latitude"])
        #expect(Self.refused { try EnvironmentReads.point(latitude: "nan", longitude: "inf") } == ["/latitude", "/longitude"])
        #expect(Self.refused { try EnvironmentReads.point(latitude: "north", longitude: nil) } == ["/latitude", "/longitude"])
    }

    @Test("a reading may be up to five minutes ahead of the server's clock, not a second more")
    func clockSkew() {
        func uv(at seconds: TimeInterval) -> [String] {
            EnvironmentRoutes.violations(
                of: UVIndexRecorded(areaCode: "lisbon", observedAt: Self.now.addingTimeInterval(seconds), uvIndex: 2), now: Self.now
            ).map(\.pointer)
        }
        #expect(uv(at: -86_400).isEmpty && uv(at: 300).isEmpty)
        #expect(uv(at: 301) == ["/observedAt"])
        let air = AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now.addingTimeInterval(301), aqi: 42)
        #expect(EnvironmentRoutes.violations(of: air, now: Self.now).map(\.pointer) == ["/observedAt"])
    }

    @Test("a UV reading's day maximum may equal the reading but not lie below it; an air-quality reading needs one value")
    func readingChecks() {
        func uv(_ index: Double, max: Double?) -> [String] {
            EnvironmentRoutes.violations(
                of: UVIndexRecorded(areaCode: "lisbon", observedAt: Self.now, uvIndex: index, dailyMax: max), now: Self.now
            ).map(\.pointer)
        }
        #expect(uv(5, max: 5).isEmpty && uv(5, max: nil).isEmpty)
        #expect(uv(5, max: 4.9) == ["/dailyMax"])

        let empty = AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now)
        #expect(EnvironmentRoutes.violations(of: empty, now: Self.now).map(\.pointer) == ["/aqi", "/pm25", "/pm10", "/o3"])
        for reading in [
            AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now, aqi: 0),
            AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now, pm25: 1),
            AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now, pm10: 1),
            AirQualityRecorded(areaCode: "lisbon", observedAt: Self.now, o3: 1),
        ] {
            #expect(EnvironmentRoutes.violations(of: reading, now: Self.now).isEmpty)
        }
    }

    @Test("an area is registered only in a time zone the IANA database knows, and under a code of the identifiers' form")
    func registration() throws {
        let area = try EnvironmentRoutes.registration(
            EnvironmentRoutes.AreaBody(name: "Lisbon", latitude: 38.72, longitude: -9.14, timeZone: "Europe/Lisbon"), areaCode: "lisbon")
        #expect(area.areaCode == "lisbon" && area.name == "Lisbon" && area.latitude == 38.72 && area.longitude == -9.14)
        #expect(area.timeZone == "Europe/Lisbon")
        #expect(
            Self.refused {
                try EnvironmentRoutes.registration(
                    EnvironmentRoutes.AreaBody(name: "Atlantis", latitude: 0, longitude: 0, timeZone: "Europe/Atlantis"), areaCode: "atlantis")
            } == ["/timeZone"])

        for code in ["lisbon", "PT.LX:1_a-b", String(repeating: "a", count: 64)] {
            #expect(try EnvironmentRoutes.areaCode(code) == code)
        }
        for code in [nil, "", "-lisbon", "lis bon", "lisbon/1", String(repeating: "a", count: 65)] {
            #expect(Self.refused { try EnvironmentRoutes.areaCode(code) } == ["/areaCode"])
        }
    }
}
