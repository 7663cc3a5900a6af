import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of areas and their environmental readings.
struct EnvironmentStore: ServiceStore {
    let session: StoreSession

    enum Registration { case registered, updated, unchanged }

    /// The kinds of reading an area keeps (`environment_readings.kind`).
    enum ReadingKind: String, Sendable {
        case uvIndex = "uv-index"
        case airQuality = "air-quality"
    }

    /// Registers the area, or changes it; locked until the transaction ends.
    func register(_ area: AreaRegistered) async throws -> Registration {
        let existing = try await session.query(
            "SELECT name, latitude, longitude, time_zone FROM areas WHERE area_code = \(area.areaCode) FOR UPDATE"
        ).collectAll().first.map { try $0.decode((String, Double, Double, String).self) }
        if let (name, latitude, longitude, timeZone) = existing {
            guard (name, latitude, longitude, timeZone) != (area.name, area.latitude, area.longitude, area.timeZone) else { return .unchanged }
            try await session.query(
                """
                UPDATE areas SET name = \(area.name), latitude = \(area.latitude), longitude = \(area.longitude), time_zone = \(area.timeZone),
                    updated_at = now()
                WHERE area_code = \(area.areaCode)
                """)
            return .updated
        }
        try await session.query(
            """
            INSERT INTO areas (area_code, name, latitude, longitude, time_zone)
            VALUES (\(area.areaCode), \(area.name), \(area.latitude), \(area.longitude), \(area.timeZone))
            """)
        return .registered
    }

    /// Whether the area is registered (its row locked, so it cannot change under the reading being stored).
    func areaExists(_ code: String) async throws -> Bool {
        try await !session.query("SELECT 1 FROM areas WHERE area_code = \(code) FOR SHARE").collectAll().isEmpty
    }

    /// Stores a reading unless the area already has one of this kind at this time; true when stored.
    func insertReading(area: String, kind: ReadingKind, observedAt: Date, bodyText: String, eventID: UUID) async throws -> Bool {
        try await !session.query(
            """
            INSERT INTO environment_readings (area_code, kind, observed_at, body, event_id)
            VALUES (\(area), \(kind.rawValue), \(observedAt), \(bodyText)::jsonb, \(eventID))
            ON CONFLICT DO NOTHING RETURNING 1
            """
        ).collectAll().isEmpty
    }

    struct Area: Encodable, Sendable {
        let areaCode: String
        let name: String
        let latitude: Double
        let longitude: Double
        let timeZone: String
    }

    /// A page of areas by code.
    func areas(page: PageRequest) async throws -> Page<Area> {
        let after = page.after?.id
        let rows = try await session.fetchAll(
            """
            SELECT area_code, name, latitude, longitude, time_zone FROM areas
            WHERE \(after == nil) OR area_code > \(after ?? "") ORDER BY area_code LIMIT \(page.limit + 1)
            """, as: (String, String, Double, Double, String).self)
        let areas = rows.map { Area(areaCode: $0.0, name: $0.1, latitude: $0.2, longitude: $0.3, timeZone: $0.4) }
        return Page(rows: areas, request: page) { .init(position: "area", id: $0.areaCode) }
    }

    func area(_ code: String) async throws -> Area? {
        try await session.fetchAll(
            "SELECT area_code, name, latitude, longitude, time_zone FROM areas WHERE area_code = \(code)",
            as: (String, String, Double, Double, String).self
        ).first.map { Area(areaCode: $0.0, name: $0.1, latitude: $0.2, longitude: $0.3, timeZone: $0.4) }
    }

    /// The area nearest a point and its great-circle distance in kilometres (haversine on the mean Earth radius,
    /// 6,371.0088 km: an app's "near me", not surveying).
    func nearest(latitude: Double, longitude: Double) async throws -> (Area, Double)? {
        try await session.fetchAll(
            """
            SELECT area_code, name, latitude, longitude, time_zone,
                   2 * 6371.0088 * asin(least(1, sqrt(power(sin(radians(latitude - \(latitude)) / 2), 2)
                       + cos(radians(\(latitude))) * cos(radians(latitude)) * power(sin(radians(longitude - \(longitude)) / 2), 2)))) AS km
            FROM areas ORDER BY km, area_code LIMIT 1
            """, as: (String, String, Double, Double, String, Double).self
        ).first.map { (Area(areaCode: $0.0, name: $0.1, latitude: $0.2, longitude: $0.3, timeZone: $0.4), $0.5) }
    }

    /// A stored reading: its time and the body it was recorded with.
    struct Reading: Sendable {
        let observedAt: Date
        let body: JSONValue
    }

    /// The area's readings of `kind` in `period`, oldest first; or only its newest one.
    func readings(
        area: String, kind: ReadingKind, period: Period, latestOnly: Bool
    ) async throws -> [Reading] {
        // The order's direction is one of two fixed words, never caller text.
        let direction = latestOnly ? "DESC" : "ASC"
        return try await session.fetchAll(
            """
            SELECT observed_at, body::text FROM environment_readings
            WHERE area_code = \(area) AND kind = \(kind.rawValue) AND observed_at >= \(period.start) AND observed_at < \(period.end)
            ORDER BY observed_at \(unescaped: direction) LIMIT \(latestOnly ? 1 : 1_000_000)
            """, as: (Date, String).self
        ).map { Reading(observedAt: $0.0, body: try CaretideJSON.parse(Array($0.1.utf8))) }
    }
}
