import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// notification-service's environmental tables: its copy of the areas (from `area.registered`), the patients'
/// subscriptions, and each subscription's alert state per kind (`EnvironmentAlertState`).
struct EnvironmentStore: ServiceStore {
    let session: StoreSession

    struct Area: Sendable {
        let code: String
        let longitude: Double
        let timeZone: TimeZone
    }

    func apply(_ area: AreaRegistered) async throws {
        try await session.query(
            """
            INSERT INTO areas (area_code, name, latitude, longitude, time_zone) VALUES
                (\(area.areaCode), \(area.name), \(area.latitude), \(area.longitude), \(area.timeZone))
            ON CONFLICT (area_code) DO UPDATE SET name = excluded.name, latitude = excluded.latitude, longitude = excluded.longitude,
                time_zone = excluded.time_zone
            """)
    }

    func area(_ code: String) async throws -> Area? {
        try await session.fetchAll(
            "SELECT longitude, time_zone FROM areas WHERE area_code = \(code)", as: (Double, String).self
        ).first.flatMap { longitude, zone in TimeZone(identifier: zone).map { Area(code: code, longitude: longitude, timeZone: $0) } }
    }

    /// One patient's subscription to an area, with its alert state for the kind being decided.
    struct Subscriber: Sendable {
        let patientID: String
        let thresholds: EnvironmentThresholds
        var state: EnvironmentAlertState
        let lastObservedAt: Date?
    }

    enum Kind: String, Sendable {
        case uvIndex, airQuality
    }

    /// The area's subscribers to `kind`, their states locked for this transaction (one reading decided at a time).
    func subscribers(area: String, kind: Kind) async throws -> [Subscriber] {
        let rows = try await session.fetchAll(
            """
            SELECT s.patient_id, s.uv_index_threshold, s.aqi_threshold, s.fitzpatrick_skin_type, s.conditions, a.state::text, a.last_observed_at
            FROM environment_subscriptions s
            LEFT JOIN environment_alert_states a ON a.patient_id = s.patient_id AND a.area_code = s.area_code AND a.kind = \(kind.rawValue)
            WHERE s.area_code = \(area) AND CASE WHEN \(kind == .uvIndex) THEN s.uv_index ELSE s.air_quality END
            ORDER BY s.patient_id FOR UPDATE OF s
            """, as: (String, Double?, Int?, Int?, [String], String?, Date?).self)
        return try rows.map { patient, uv, aqi, skinType, conditions, state, lastObservedAt in
            Subscriber(
                patientID: patient,
                thresholds: EnvironmentThresholds(
                    uvIndex: uv, aqi: aqi, fitzpatrickSkinType: skinType, conditions: Set(conditions.compactMap(SensitiveCondition.init(rawValue:)))),
                state: try state.map { try JSONValueDecoder.decode(EnvironmentAlertState.self, from: CaretideJSON.parse(Array($0.utf8))) }
                    ?? EnvironmentAlertState(),
                lastObservedAt: lastObservedAt)
        }
    }

    /// Stores the subscribers' states after a reading, in one statement.
    func save(_ states: [(patientID: String, state: EnvironmentAlertState)], area: String, kind: Kind, observedAt: Date) async throws {
        guard !states.isEmpty else { return }
        let texts = try states.map { try CaretideJSON.encodeToString($0.state) }
        try await session.query(
            """
            INSERT INTO environment_alert_states (patient_id, area_code, kind, state, last_observed_at)
            SELECT patient, \(area), \(kind.rawValue), state::jsonb, \(observedAt) FROM unnest(\(states.map(\.patientID)), \(texts)) AS t(patient, state)
            ON CONFLICT (patient_id, area_code, kind) DO UPDATE SET state = excluded.state, last_observed_at = excluded.last_observed_at
            """)
    }
}

extension EnvironmentStore {
    /// A subscription as the patient sets and reads it, with the thresholds in force.
    struct Subscription: Encodable, Sendable {
        let areaCode: String
        let uvIndex: Bool
        let airQuality: Bool
        let uvIndexThreshold: Double?
        let aqiThreshold: Int?
        let fitzpatrickSkinType: Int?
        let conditions: [String]
        /// The thresholds alerts use: the chosen ones, or those that follow from skin type and conditions.
        let effectiveUVIndexThreshold: Double
        let effectiveAQIThreshold: Int
        let updatedAt: Date
    }

    static func subscription(
        areaCode: String, uvIndex: Bool, airQuality: Bool, uvIndexThreshold: Double?, aqiThreshold: Int?, fitzpatrickSkinType: Int?,
        conditions: [String], updatedAt: Date
    ) -> Subscription {
        let effective = EnvironmentThresholds(
            uvIndex: uvIndexThreshold, aqi: aqiThreshold, fitzpatrickSkinType: fitzpatrickSkinType,
            conditions: Set(conditions.compactMap(SensitiveCondition.init(rawValue:))))
        return Subscription(
            areaCode: areaCode, uvIndex: uvIndex, airQuality: airQuality, uvIndexThreshold: uvIndexThreshold, aqiThreshold: aqiThreshold,
            fitzpatrickSkinType: fitzpatrickSkinType, conditions: conditions, effectiveUVIndexThreshold: effective.uvIndex,
            effectiveAQIThreshold: effective.aqi, updatedAt: updatedAt)
    }

    /// Subscribes (or replaces the subscription); false when the area is not registered.
    func subscribe(patientID: String, _ subscription: Subscription) async throws -> Bool {
        try await !session.fetchAll(
            """
            INSERT INTO environment_subscriptions (patient_id, area_code, uv_index, air_quality, uv_index_threshold, aqi_threshold,
                                                   fitzpatrick_skin_type, conditions, updated_at)
            SELECT \(patientID), area_code, \(subscription.uvIndex), \(subscription.airQuality), \(subscription.uvIndexThreshold),
                   \(subscription.aqiThreshold), \(subscription.fitzpatrickSkinType), \(subscription.conditions), \(subscription.updatedAt)
            FROM areas WHERE area_code = \(subscription.areaCode)
            ON CONFLICT (patient_id, area_code) DO UPDATE SET uv_index = excluded.uv_index, air_quality = excluded.air_quality,
                uv_index_threshold = excluded.uv_index_threshold, aqi_threshold = excluded.aqi_threshold,
                fitzpatrick_skin_type = excluded.fitzpatrick_skin_type, conditions = excluded.conditions, updated_at = excluded.updated_at
            RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// Ends a subscription and forgets its alert states; false when there was none.
    /// The subscription's row first, then its alert states: the order a reading locks them in (`subscribers`), so an
    /// unsubscribe racing a reading of the area waits for it instead of deadlocking with it.
    func unsubscribe(patientID: String, areaCode: String) async throws -> Bool {
        let removed = try await !session.fetchAll(
            "DELETE FROM environment_subscriptions WHERE patient_id = \(patientID) AND area_code = \(areaCode) RETURNING 1", as: Int.self
        ).isEmpty
        try await session.query(
            "DELETE FROM environment_alert_states WHERE patient_id = \(patientID) AND area_code = \(areaCode)")
        return removed
    }

    /// A page of the patient's subscriptions, by area code.
    func subscriptions(patientID: String, page: PageRequest) async throws -> Page<Subscription> {
        let after = page.after?.id
        let rows = try await session.fetchAll(
            """
            SELECT area_code, uv_index, air_quality, uv_index_threshold, aqi_threshold, fitzpatrick_skin_type, conditions, updated_at
            FROM environment_subscriptions
            WHERE patient_id = \(patientID) AND (\(after == nil) OR area_code > \(after ?? ""))
            ORDER BY area_code LIMIT \(page.limit + 1)
            """, as: (String, Bool, Bool, Double?, Int?, Int?, [String], Date).self)
        return Page(
            rows: rows.map {
                Self.subscription(
                    areaCode: $0.0, uvIndex: $0.1, airQuality: $0.2, uvIndexThreshold: $0.3, aqiThreshold: $0.4, fitzpatrickSkinType: $0.5,
                    conditions: $0.6,
                    updatedAt: $0.7)
            }, request: page
        ) { PageRequest.Cursor(position: "area", id: $0.areaCode) }
    }
}
