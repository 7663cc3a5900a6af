import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// What an app shows of the environment, for every authenticated caller (areas are reference data):
/// - `GET /v1/areas/nearest?latitude=&longitude=`: the registered area nearest a point (the phone's location), with
///   its distance;
/// - `GET /v1/areas/{areaCode}/environment`: the latest UV index (with its WHO band and colour, the day's maximum,
///   solar noon and the ozone column when the feed sends them) and the latest air quality (US AQI, EPA category and
///   colour, the dominant pollutant);
/// - `GET /v1/areas/{areaCode}/uv-index` and `…/air-quality?from=&to=&points=`: their series for a chart.
struct EnvironmentReads: Sendable {
    let context: ServiceContext

    struct UVReading: Encodable, Sendable {
        let observedAt: Date
        let uvIndex: Double
        /// The WHO band (low, moderate, high, veryHigh, extreme) and its colour.
        let category: String
        let colour: String
        let dailyMax: Double?
        /// The day's maximum has its own WHO band and colour: a reading of 0 at dawn with a maximum of 12.67 is a
        /// day of extreme UV, not a low one.
        let dailyMaxCategory: String?
        let dailyMaxColour: String?
        /// The feed's, or computed from the area's longitude (NOAA's approximation) when the feed sends none.
        let solarNoon: Date?
        /// The total ozone column in Dobson units, when the feed sends it.
        let ozone: Double?
    }

    struct AirQualityReading: Encodable, Sendable {
        let observedAt: Date
        /// The US AQI: the feed's, or the highest of the pollutants' sub-indices (EPA-454/B-24-002).
        let aqi: Int
        let category: String
        let colour: String
        /// The pollutant whose sub-index sets the AQI; absent when the feed's own AQI does.
        let dominantPollutant: String?
        let pm25: Double?
        let pm10: Double?
        let o3: Double?
    }

    struct Latest: Encodable, Sendable {
        let area: EnvironmentStore.Area
        let uvIndex: UVReading?
        let airQuality: AirQualityReading?
    }

    struct Nearest: Encodable, Sendable {
        let area: EnvironmentStore.Area
        /// Great-circle distance from the point asked about, in kilometres.
        let distanceKm: Double
    }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/areas/nearest", access: .referenceData, summary: "The registered area nearest a point, with its distance",
            query: [
                QueryParameter("latitude", "degrees, -90 to 90", required: true), QueryParameter("longitude", "degrees, -180 to 180", required: true),
            ]
        ) { request, _ in
            let (latitude, longitude) = try Self.point(request)
            guard
                let (area, distance) = try await EnvironmentStore(context).nearest(
                    latitude: latitude, longitude: longitude)
            else { throw HTTPProblem(status: .notFound, error: "no area is registered") }
            return try jsonResponse(Nearest(area: area, distanceKm: (distance * 10).rounded() / 10))
        }
        routes.get(
            "v1/areas/:areaCode/environment", access: .referenceData,
            summary: "The latest UV index and air quality of an area, with their categories and colours"
        ) { _, requestContext in
            let area = try await self.area(requestContext)
            let uv = try await EnvironmentStore(context).readings(
                area: area.areaCode, kind: .uvIndex, period: .always, latestOnly: true)
            let air = try await EnvironmentStore(context).readings(
                area: area.areaCode, kind: .airQuality, period: .always, latestOnly: true)
            return try jsonResponse(
                Latest(area: area, uvIndex: uv.first.flatMap { Self.uv($0, area: area) }, airQuality: air.first.flatMap(Self.airQuality)))
        }
        routes.get(
            "v1/areas/:areaCode/uv-index", access: .referenceData, summary: "An area's UV index readings over a period for a chart",
            query: SeriesQuery.queryParameters
        ) { request, requestContext in
            let area = try await self.area(requestContext)
            let query = try SeriesQuery.from(request)
            let rows = try await EnvironmentStore(context).readings(
                area: area.areaCode, kind: .uvIndex, period: query.period, latestOnly: false)
            let readings = rows.compactMap { Self.uv($0, area: area) }
            return try jsonResponse(SeriesResponse(readings, query: query, time: \.observedAt, values: { [$0.uvIndex] }, point: { $0 }))
        }
        routes.get(
            "v1/areas/:areaCode/air-quality", access: .referenceData, summary: "An area's air-quality readings over a period for a chart",
            query: SeriesQuery.queryParameters
        ) { request, requestContext in
            let area = try await self.area(requestContext)
            let query = try SeriesQuery.from(request)
            let rows = try await EnvironmentStore(context).readings(
                area: area.areaCode, kind: .airQuality, period: query.period, latestOnly: false)
            let readings = rows.compactMap(Self.airQuality)
            return try jsonResponse(SeriesResponse(readings, query: query, time: \.observedAt, values: { [Double($0.aqi)] }, point: { $0 }))
        }
    }

    private func area(_ requestContext: CaretideRequestContext) async throws -> EnvironmentStore.Area {
        let code = try EnvironmentRoutes.areaCode(requestContext)
        guard let area = try await EnvironmentStore(context).area(code) else {
            throw HTTPProblem(status: .notFound, error: "no such area")
        }
        return area
    }

    /// A stored UV reading as the area's reads show it; nil for a row that is not one (every stored row was a valid
    /// request).
    static func uv(_ row: EnvironmentStore.Reading, area: EnvironmentStore.Area) -> UVReading? {
        guard let body = try? JSONValueDecoder.decode(EnvironmentRoutes.UVIndexBody.self, from: row.body) else { return nil }
        let category = UVIndexCategory(uvIndex: body.uvIndex)
        let solarNoon =
            body.solarNoon ?? TimeZone(identifier: area.timeZone).flatMap { SolarNoon.of(row.observedAt, timeZone: $0, longitude: area.longitude) }
        let maxCategory = body.dailyMax.map(UVIndexCategory.init(uvIndex:))
        return UVReading(
            observedAt: row.observedAt, uvIndex: body.uvIndex, category: category.rawValue, colour: category.colour, dailyMax: body.dailyMax,
            dailyMaxCategory: maxCategory?.rawValue, dailyMaxColour: maxCategory?.colour, solarNoon: solarNoon, ozone: body.ozone)
    }

    static func airQuality(_ row: EnvironmentStore.Reading) -> AirQualityReading? {
        guard let body = try? JSONValueDecoder.decode(EnvironmentRoutes.AirQualityBody.self, from: row.body) else { return nil }
        let (aqi, pm25, pm10, o3) = (body.aqi, body.pm25, body.pm10, body.o3)
        // Stored readings passed the same rule when they were recorded.
        guard let assessed = try? AirQualityIndex.assess(aqi: aqi, pm25: pm25, pm10: pm10, o3: o3) else { return nil }
        return AirQualityReading(
            observedAt: row.observedAt, aqi: assessed.aqi, category: assessed.category.rawValue, colour: assessed.category.colour,
            dominantPollutant: assessed.dominantPollutant?.rawValue, pm25: pm25, pm10: pm10, o3: o3)
    }

    static func point(_ request: Request) throws -> (Double, Double) {
        try point(latitude: request.uri.queryParameters.get("latitude"), longitude: request.uri.queryParameters.get("longitude"))
    }

    /// The point the query's texts give, or a 400 naming each parameter missing, not a number, or out of its range.
    static func point(latitude: String?, longitude: String?) throws -> (Double, Double) {
        var violations: [SchemaViolation] = []
        func read(_ name: String, _ text: String?, _ range: ClosedRange<Double>) -> Double {
            guard let text, let value = Double(text), value.isFinite, range.contains(value) else {
                violations.append(
                    SchemaViolation(
                        pointer: JSONPointer(tokens: [name]),
                        message: "is required: degrees from \(Int(range.lowerBound)) to \(Int(range.upperBound))"))
                return 0
            }
            return value
        }
        let point = (read("latitude", latitude, -90...90), read("longitude", longitude, -180...180))
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return point
    }
}
