import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging

/// UV and air-quality alerts: a reading of an area is decided for each patient subscribed to it, against the
/// patient's thresholds and alert-fatigue state (`EnvironmentAlertState`); an alert says the category, what to do
/// (its tip) and, for UV, when the sun is highest; an all-clear follows when the value falls back below the
/// threshold. Readings are judged at the time they were observed, so a replay decides the same, and one older than
/// the last decided is skipped.
struct EnvironmentAlerting {
    let context: HandlerContext
    let event: ValidatedEvent

    /// What a reading means, whoever is subscribed.
    struct Reading {
        let kind: EnvironmentStore.Kind
        let area: String
        let observedAt: Date
        let value: Double
        /// The band (an alert about it), and its rank.
        let band: AlertTopic
        let rank: Int
        let severity: Severity
        let peakAt: Date?
        let exceeds: (EnvironmentThresholds) -> Bool
    }

    func uvIndex(_ reading: UVIndexRecorded) async throws {
        guard let area = try await EnvironmentStore(context).area(reading.areaCode) else { return }
        let category = UVIndexCategory(uvIndex: reading.uvIndex)
        try await decide(
            Reading(
                kind: .uvIndex, area: reading.areaCode, observedAt: reading.observedAt, value: reading.uvIndex, band: .uvIndex(category),
                rank: category.rank, severity: .attention,
                peakAt: reading.solarNoon ?? SolarNoon.of(reading.observedAt, timeZone: area.timeZone, longitude: area.longitude),
                exceeds: { reading.uvIndex >= $0.uvIndex }), timeZone: area.timeZone)
    }

    func airQuality(_ reading: AirQualityRecorded) async throws {
        guard let area = try await EnvironmentStore(context).area(reading.areaCode) else { return }
        let assessment: AirQualityAssessment
        do {
            assessment = try AirQualityIndex.assess(aqi: reading.aqi, pm25: reading.pm25, pm10: reading.pm10, o3: reading.o3)
        } catch {
            throw UnprocessableEvent("the air-quality reading cannot be classified: \(error.issues.map(\.field).joined(separator: ", "))")
        }
        // Hazardous air is urgent: it goes through quiet hours (EPA: everyone should avoid outdoor activity).
        try await decide(
            Reading(
                kind: .airQuality, area: reading.areaCode, observedAt: reading.observedAt, value: Double(assessment.aqi),
                band: .airQuality(assessment.category), rank: assessment.category.rank,
                severity: assessment.category == .hazardous ? .urgent : .attention,
                peakAt: nil, exceeds: { assessment.aqi >= $0.aqi }), timeZone: area.timeZone)
    }

    private func decide(_ reading: Reading, timeZone: TimeZone) async throws {
        let store = EnvironmentStore(context)
        let day = Self.localDay(reading.observedAt, timeZone)
        let clock = ContinuousClock.now
        let subscribers = try await store.subscribers(area: reading.area, kind: reading.kind)
        let loaded = ContinuousClock.now
        let (notifications, states) = Self.decisions(reading, for: subscribers, day: day, eventID: event.eventID, raisedAt: Date())
        let decided = ContinuousClock.now
        try await store.save(states, area: reading.area, kind: reading.kind, observedAt: reading.observedAt)
        let saved = ContinuousClock.now
        // Each keyed by its subscriber: the reading itself belongs to no patient.
        try await NotificationDelivery.deliver(notifications, traceID: event.traceID, context: context)
        // Ids and counts only: what a fan-out to many subscribers spends its time on.
        let milliseconds = { (from: ContinuousClock.Instant, to: ContinuousClock.Instant) in
            "\((to - from).components.seconds * 1000 + (to - from).components.attoseconds / 1_000_000_000_000_000)"
        }
        context.logger.info(
            "environmental reading decided",
            metadata: [
                LogKey.areaCode: "\(reading.area)", LogKey.kind: "\(reading.kind.rawValue)", LogKey.subscribers: "\(subscribers.count)",
                LogKey.notified: "\(notifications.count)",
                LogKey.loadMilliseconds: "\(milliseconds(clock, loaded))", LogKey.decideMilliseconds: "\(milliseconds(loaded, decided))",
                LogKey.saveMilliseconds: "\(milliseconds(decided, saved))",
                LogKey.deliverMilliseconds: "\(milliseconds(saved, .now))",
            ])
    }

    /// A reading decided for each subscriber, apart from the database so the rules can be checked alone: the
    /// notifications it raises (an alert in the reading's band, or an all-clear without a peak time), caused by and about
    /// event `eventID`, and each subscriber's state after it. A subscriber who already had a reading observed as late
    /// or later (a replay, a reading out of order) is skipped and keeps their state.
    static func decisions(
        _ reading: Reading, for subscribers: [EnvironmentStore.Subscriber], day: String, eventID: UUID, raisedAt: Date
    ) -> (notifications: [NotificationStore.Row], states: [(patientID: String, state: EnvironmentAlertState)]) {
        var notifications: [NotificationStore.Row] = []
        var states: [(patientID: String, state: EnvironmentAlertState)] = []
        for var subscriber in subscribers {
            if let last = subscriber.lastObservedAt, last >= reading.observedAt { continue }
            let decision = subscriber.state.decide(
                level: reading.rank, aboveThreshold: reading.exceeds(subscriber.thresholds), now: reading.observedAt, day: day)
            states.append((subscriber.patientID, subscriber.state))
            let (topic, severity): (AlertTopic, Severity)
            switch decision {
            case .none: continue
            case .alert: (topic, severity) = (reading.band, reading.severity)
            case .allClear: (topic, severity) = (reading.kind == .uvIndex ? .uvIndex(nil) : .airQuality(nil), .normal)
            }
            notifications.append(
                NotificationStore.Row(
                    topic, severity: severity, source: eventID, about: eventID, to: .init(id: subscriber.patientID, role: .patient),
                    patientID: subscriber.patientID, raisedAt: raisedAt,
                    reading: (reading.area, reading.value, decision == .allClear ? nil : reading.peakAt)))
        }
        return (notifications: notifications, states: states)
    }

    /// yyyy-MM-dd of `instant` in the area's time zone.
    static func localDay(_ instant: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
