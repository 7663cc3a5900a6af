import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of areas and their environmental readings.
struct EnvironmentStore: TransactionalStore {
    let connection: PostgresConnection
    let logger: Logger

    enum Registration { case registered, updated, unchanged }

    /// Registers the area, or changes it; locked until the transaction ends.
    func register(_ area: AreaRegistered) async throws -> Registration {
        let existing = try await connection.query(
            "SELECT name, latitude, longitude, time_zone FROM areas WHERE area_code = \(area.areaCode) FOR UPDATE", logger: logger
        ).collectAll().first.map { try $0.decode((String, Double, Double, String).self) }
        if let (name, latitude, longitude, timeZone) = existing {
            guard (name, latitude, longitude, timeZone) != (area.name, area.latitude, area.longitude, area.timeZone) else { return .unchanged }
            try await connection.query(
                """
                UPDATE areas SET name = \(area.name), latitude = \(area.latitude), longitude = \(area.longitude), time_zone = \(area.timeZone),
                    updated_at = now()
                WHERE area_code = \(area.areaCode)
                """, logger: logger)
            return .updated
        }
        try await connection.query(
            """
            INSERT INTO areas (area_code, name, latitude, longitude, time_zone)
            VALUES (\(area.areaCode), \(area.name), \(area.latitude), \(area.longitude), \(area.timeZone))
            """, logger: logger)
        return .registered
    }

    /// Whether the area is registered (its row locked, so it cannot change under the reading being stored).
    func areaExists(_ code: String) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM areas WHERE area_code = \(code) FOR SHARE", logger: logger).collectAll().isEmpty
    }

    /// Stores a reading unless the area already has one of this kind at this time; true when stored.
    func insertReading(area: String, kind: String, observedAt: Date, bodyText: String, eventID: UUID) async throws -> Bool {
        try await !connection.query(
            """
            INSERT INTO environment_readings (area_code, kind, observed_at, body, event_id)
            VALUES (\(area), \(kind), \(observedAt), \(bodyText)::jsonb, \(eventID))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger
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
    static func areas(page: PageRequest, on client: PostgresClient, logger: Logger) async throws -> Page<Area> {
        let after = page.after?.id
        let rows = try await client.fetchAll(
            """
            SELECT area_code, name, latitude, longitude, time_zone FROM areas
            WHERE \(after == nil) OR area_code > \(after ?? "") ORDER BY area_code LIMIT \(page.limit + 1)
            """, as: (String, String, Double, Double, String).self, logger: logger)
        let areas = rows.map { Area(areaCode: $0.0, name: $0.1, latitude: $0.2, longitude: $0.3, timeZone: $0.4) }
        return Page(rows: areas, request: page) { .init(position: "area", id: $0.areaCode) }
    }
}
