import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// What the report's UV and air-quality section reads, kept from `caretide.environment`: each area's name and time
/// zone, its daily maxima (the highest UV index and US AQI of each of the area's own calendar days), and the areas
/// each patient follows. Readings are folded into the day's maxima as they come, so a redelivered reading changes
/// nothing and the table grows by a row per area and day, not per reading.
struct ReportEnvironmentStore: ServiceStore {
    let session: StoreSession

    func register(_ area: AreaRegistered) async throws {
        try await session.query(
            """
            INSERT INTO report_areas (area_code, name, time_zone) VALUES (\(area.areaCode), \(area.name), \(area.timeZone))
            ON CONFLICT (area_code) DO UPDATE SET name = excluded.name, time_zone = excluded.time_zone
            """)
    }

    /// The UV index counts with the day's maximum the feed forecast, whichever is higher.
    func record(_ reading: UVIndexRecorded) async throws {
        try await fold(areaCode: reading.areaCode, at: reading.observedAt, uvIndex: max(reading.uvIndex, reading.dailyMax ?? 0), aqi: nil)
    }

    /// The AQI is the feed's, or computed from the concentrations (EPA-454/B-24-002) as the alerts compute it; a
    /// reading the rule refuses is not charted.
    func record(_ reading: AirQualityRecorded) async throws {
        guard let assessed = try? AirQualityIndex.assess(aqi: reading.aqi, pm25: reading.pm25, pm10: reading.pm10, o3: reading.o3) else { return }
        try await fold(areaCode: reading.areaCode, at: reading.observedAt, uvIndex: nil, aqi: assessed.aqi)
    }

    private func fold(areaCode: String, at time: Date, uvIndex: Double?, aqi: Int?) async throws {
        try await session.query(
            """
            INSERT INTO report_area_days (area_code, day, uv_index_max, aqi_max)
            SELECT \(areaCode), (\(time)::timestamptz AT TIME ZONE coalesce((SELECT time_zone FROM report_areas WHERE area_code = \(areaCode)), 'UTC'))::date,
                   \(uvIndex), \(aqi)
            ON CONFLICT (area_code, day) DO UPDATE
                SET uv_index_max = greatest(report_area_days.uv_index_max, excluded.uv_index_max),
                    aqi_max = greatest(report_area_days.aqi_max, excluded.aqi_max)
            """)
    }

    /// A patient following or leaving an area; an older change arriving late changes nothing.
    func apply(_ change: EnvironmentSubscriptionChanged, patientID: String) async throws {
        try await session.query(
            """
            INSERT INTO report_followed_areas (patient_id, area_code, following, changed_at)
            VALUES (\(patientID), \(change.areaCode), \(change.subscribed), \(change.changedAt))
            ON CONFLICT (patient_id, area_code) DO UPDATE SET following = excluded.following, changed_at = excluded.changed_at
                WHERE report_followed_areas.changed_at <= excluded.changed_at
            """)
    }

    /// The areas the patient follows now, by name, each with its daily maxima in `period`, oldest day first.
    func followedAreas(patientID: String, period: Period) async throws
        -> [PatientReport.AreaHistory]
    {
        let rows = try await session.fetchAll(
            """
            SELECT f.area_code, coalesce(a.name, f.area_code), d.day::timestamptz, d.uv_index_max, d.aqi_max
            FROM report_followed_areas f
            LEFT JOIN report_areas a ON a.area_code = f.area_code
            LEFT JOIN report_area_days d ON d.area_code = f.area_code
                AND d.day >= (\(period.start)::timestamptz AT TIME ZONE coalesce(a.time_zone, 'UTC'))::date
                AND d.day < (\(period.end)::timestamptz AT TIME ZONE coalesce(a.time_zone, 'UTC'))::date + 1
            WHERE f.patient_id = \(patientID) AND f.following
            ORDER BY 2, f.area_code, d.day
            """, as: (String, String, Date?, Double?, Int?).self)
        var areas: [PatientReport.AreaHistory] = []
        for row in rows {
            if areas.last?.areaCode != row.0 { areas.append(PatientReport.AreaHistory(areaCode: row.0, name: row.1, days: [])) }
            if let day = row.2 { areas[areas.count - 1].days.append(.init(day: day, uvIndexMax: row.3, aqiMax: row.4)) }
        }
        return areas
    }
}
