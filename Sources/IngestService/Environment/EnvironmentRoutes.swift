import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Operators' environmental feeds, for UV and air-quality alerts downstream:
/// - `PUT  /v1/areas/{areaCode}`: register an area (name, centre point, IANA time zone), or change it
/// - `GET  /v1/areas`: the registered areas, by code (paged)
/// - `POST /v1/areas/{areaCode}/uv-index`: a UV index reading (now, the day's maximum, solar noon)
/// - `POST /v1/areas/{areaCode}/air-quality`: a US AQI value, or PM2.5 / PM10 / O3 concentrations, or both
/// A reading for an area not registered is a 404 naming it. The same area, kind and time again is a duplicate (200,
/// nothing new). Every change is an event on `caretide.environment`, keyed by area.
struct EnvironmentRoutes: Sendable {
    let context: ServiceContext

    struct Receipt: Encodable, Sendable {
        let areaCode: String
        /// registered, updated, unchanged (areas); recorded, duplicate (readings).
        let status: String
        let eventId: UUID?

        var httpStatus: HTTPResponse.Status { ["registered", "recorded"].contains(status) ? .created : .ok }
    }

    struct AreaBody: SchemaBody {
        static let schema: RequestSchema = .area
        let name: String
        let latitude: Double
        let longitude: Double
        let timeZone: String
    }

    /// A UV reading as sent, and as stored (`EnvironmentReads` reads it back).
    struct UVIndexBody: SchemaBody, Encodable {
        static let schema: RequestSchema = .uvIndex
        let observedAt: Date
        let uvIndex: Double
        let dailyMax: Double?
        let solarNoon: Date?
        let ozone: Double?
    }

    /// An air-quality reading as sent, and as stored.
    struct AirQualityBody: SchemaBody, Encodable {
        static let schema: RequestSchema = .airQuality
        let observedAt: Date
        let aqi: Double?
        let pm25: Double?
        let pm10: Double?
        let o3: Double?
    }

    func register(on routes: APIRoutes) {
        routes.put(
            "v1/areas/:areaCode", access: .operatorFeeds, summary: "Register an area for environmental readings, or change it",
            body: [AreaBody.schema]
        ) { request, requestContext in
            let code = try Self.areaCode(requestContext)
            let body = try await request.decode(as: AreaBody.self, context: requestContext)
            let area = try Self.registration(body, areaCode: code)
            let requestID = requestContext.requestID
            let receipt = try await context.transaction { handler in
                let outcome = try await EnvironmentStore(handler).register(area)
                guard outcome != .unchanged else { return Receipt(areaCode: code, status: "unchanged", eventId: nil) }
                let envelope = EventEnvelope(producer: handler.producer, patientID: nil, traceID: requestID, payload: area)
                try await handler.publish(envelope)
                return Receipt(areaCode: code, status: outcome == .registered ? "registered" : "updated", eventId: envelope.eventID)
            }
            return try jsonResponse(receipt, status: receipt.httpStatus)
        }
        routes.get("v1/areas", access: .referenceData, summary: "The registered areas, by code", paged: true) { request, _ in
            try jsonResponse(try await EnvironmentStore(context).areas(page: .from(request)))
        }
        routes.post(
            "v1/areas/:areaCode/uv-index", access: .operatorFeeds, summary: "Record a UV index reading of a registered area",
            body: [UVIndexBody.schema]
        ) { request, requestContext in
            let code = try Self.areaCode(requestContext)
            let body = try await request.decode(as: UVIndexBody.self, context: requestContext)
            let reading = UVIndexRecorded(
                areaCode: code, observedAt: body.observedAt, uvIndex: body.uvIndex, dailyMax: body.dailyMax, solarNoon: body.solarNoon)
            return try await record(
                reading, kind: .uvIndex, observedAt: reading.observedAt, body: body, violations: Self.violations(of: reading, now: Date()),
                request: requestContext)
        }
        routes.post(
            "v1/areas/:areaCode/air-quality", access: .operatorFeeds,
            summary: "Record an air-quality reading of a registered area (US AQI, or PM2.5 / PM10 / O3)", body: [AirQualityBody.schema]
        ) { request, requestContext in
            let code = try Self.areaCode(requestContext)
            let body = try await request.decode(as: AirQualityBody.self, context: requestContext)
            let reading = AirQualityRecorded(
                areaCode: code, observedAt: body.observedAt, aqi: body.aqi, pm25: body.pm25, pm10: body.pm10, o3: body.o3)
            return try await record(
                reading, kind: .airQuality, observedAt: reading.observedAt, body: body, violations: Self.violations(of: reading, now: Date()),
                request: requestContext)
        }
    }

    /// Stores a reading of a registered area and announces it; a duplicate answers the first's receipt.
    private func record<P: EventPayload>(
        _ reading: P, kind: EnvironmentStore.ReadingKind, observedAt: Date, body: some Encodable, violations: [SchemaViolation],
        request: CaretideRequestContext
    ) async throws -> Response {
        guard violations.isEmpty else {
            throw HTTPProblem(status: .unprocessableContent, error: "the reading cannot be recorded", violations: violations)
        }
        let code = reading.partitionKey ?? ""
        let bodyText = try CaretideJSON.encodeToString(body)
        let requestID = request.requestID
        let receipt = try await context.transaction { handler in
            let store = EnvironmentStore(handler)
            guard try await store.areaExists(code) else {
                throw HTTPProblem(
                    status: .notFound, error: "no such area; register it first with PUT /v1/areas/{areaCode}",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["areaCode"]), message: "is not a registered area")])
            }
            let envelope = EventEnvelope(producer: handler.producer, patientID: nil, traceID: requestID, payload: reading)
            guard try await store.insertReading(area: code, kind: kind, observedAt: observedAt, bodyText: bodyText, eventID: envelope.eventID) else {
                return Receipt(areaCode: code, status: "duplicate", eventId: nil)
            }
            try await handler.publish(envelope)
            return Receipt(areaCode: code, status: "recorded", eventId: envelope.eventID)
        }
        return try jsonResponse(receipt, status: receipt.httpStatus)
    }

    /// The area a body registers under `areaCode`, or a 422 when its time zone is not one the IANA database knows
    /// (its readings' solar noon and days are counted in it).
    static func registration(_ body: AreaBody, areaCode: String) throws -> AreaRegistered {
        guard TimeZone(identifier: body.timeZone) != nil else {
            throw HTTPProblem(
                status: .unprocessableContent, error: "the area cannot be registered",
                violations: [
                    SchemaViolation(pointer: JSONPointer(tokens: ["timeZone"]), message: "must be an IANA time zone, e.g. Europe/Lisbon")
                ])
        }
        return AreaRegistered(
            areaCode: areaCode, name: body.name, latitude: body.latitude, longitude: body.longitude, timeZone: body.timeZone)
    }

    /// What a UV reading's schema cannot refuse: a time ahead of `now` beyond clock skew, a day's maximum below the
    /// reading itself.
    static func violations(of reading: UVIndexRecorded, now: Date) -> [SchemaViolation] {
        var violations = futureViolations(reading.observedAt, now: now)
        if let dailyMax = reading.dailyMax, dailyMax < reading.uvIndex {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["dailyMax"]), message: "must not be below uvIndex"))
        }
        return violations
    }

    /// What an air-quality reading's schema cannot refuse: a time ahead of `now` beyond clock skew, and a reading
    /// without any value (each of the four is named, as any one of them would do).
    static func violations(of reading: AirQualityRecorded, now: Date) -> [SchemaViolation] {
        var violations = futureViolations(reading.observedAt, now: now)
        if [reading.aqi, reading.pm25, reading.pm10, reading.o3].allSatisfy({ $0 == nil }) {
            violations += ["aqi", "pm25", "pm10", "o3"].map {
                SchemaViolation(pointer: JSONPointer(tokens: [$0]), message: "one of aqi, pm25, pm10 and o3 is required")
            }
        }
        return violations
    }

    static func futureViolations(_ observedAt: Date, now: Date = Date()) -> [SchemaViolation] {
        observedAt > now.addingTimeInterval(RecordRoutes.clockSkew)
            ? [SchemaViolation(pointer: JSONPointer(tokens: ["observedAt"]), message: RecordRoutes.futureMessage)] : []
    }

    static func areaCode(_ context: some RequestContext) throws -> String {
        try areaCode(context.parameters.get("areaCode"))
    }

    /// The `areaCode` path parameter's text, or a 400 naming it: area codes follow the patient id's form.
    static func areaCode(_ text: String?) throws -> String {
        let code = text ?? ""
        guard PatientID.isValid(code) else {
            throw HTTPProblem.invalidPathParameter("areaCode", label: "area code", requirement: "must be 1 to 64 letters, digits or . _ : -")
        }
        return code
    }
}
