import CaretideCharts
import CaretideSchemas
public import Foundation
public import Hummingbird

/// What a chart asks of a series: `?from=&to=` (`Period`) and `?points=`, the most points it will draw. Every
/// series endpoint answers `SeriesResponse`, thinned by the same method (`Downsampling.minMax`), so an app draws
/// any of them with one piece of code.
public struct SeriesQuery: Sendable, Equatable {
    public static let defaultPoints = 500
    public static let maximumPoints = 5_000

    public let period: Period
    public let points: Int

    public init(period: Period = .always, points: Int = SeriesQuery.defaultPoints) {
        self.period = period
        self.points = points
    }

    public static let queryParameters =
        Period.queryParameters + [
            QueryParameter(
                "points",
                "the most points to answer (4 to \(maximumPoints), default \(defaultPoints)); a longer series is thinned keeping each bucket's extremes"
            )
        ]

    /// Reads the period and `points`, or a 400 naming each bad parameter.
    public static func from(_ request: Request) throws -> SeriesQuery {
        var violations: [SchemaViolation] = []
        var period = Period.always
        do {
            period = try Period.from(request)
        } catch let problem as HTTPProblem {
            violations += problem.violations
        }
        var points = defaultPoints
        if let text = request.uri.queryParameters.get("points") {
            if let value = Int(text), (4...maximumPoints).contains(value) {
                points = value
            } else {
                violations.append(
                    SchemaViolation(pointer: JSONPointer(tokens: ["points"]), message: "must be a whole number from 4 to \(maximumPoints)"))
            }
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return SeriesQuery(period: period, points: points)
    }
}

/// A series as a chart reads it: the points in time order and how they were chosen.
public struct SeriesResponse<Point: Encodable & Sendable>: Encodable, Sendable {
    /// The period the points were read over: the one asked for, or, left open, the series' own first and last time.
    public let from: Date?
    public let to: Date?
    /// How many points the period holds before thinning.
    public let count: Int
    /// The width of the buckets the series was thinned with; absent when every point is here.
    public let bucketSeconds: Double?
    /// `all`, or `min-max` (each bucket keeps the points holding the lowest and the highest of each value).
    public let method: String
    public let points: [Point]

    /// `points` (in time order) thinned to the query's number when longer.
    /// - Parameters:
    ///   - time: when a point was taken.
    ///   - values: the values the chart draws; each one's extremes per bucket are kept.
    public init<Row>(_ rows: [Row], query: SeriesQuery, time: (Row) -> Date, values: (Row) -> [Double], point: (Row) throws -> Point) rethrows {
        let start = query.period.start == Timestamp.plausibleRange.lowerBound ? rows.first.map(time) : query.period.start
        let end = query.period.end == Timestamp.plausibleRange.upperBound ? rows.last.map(time) : query.period.end
        let thinned = Downsampling.minMax(
            rows, start: (start ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970,
            end: (end ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970, maximumPoints: query.points,
            time: { time($0).timeIntervalSince1970 }, values: values)
        from = start
        to = end
        count = rows.count
        bucketSeconds = thinned.bucketSeconds
        method = thinned.bucketSeconds == nil ? "all" : "min-max"
        points = try thinned.points.map(point)
    }
}
