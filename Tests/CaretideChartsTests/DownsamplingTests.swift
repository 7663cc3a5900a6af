import CaretideCharts
import PropertyBased
import Testing

/// Per-bucket min/max: never more points than asked, a subset of the series in time order, and every bucket's (so
/// every global) extreme of every value kept.
@Suite struct DownsamplingTests {
    struct Point: Equatable {
        let time: Double
        let values: [Double]
    }

    static func thin(_ points: [Point], maximumPoints: Int) -> Downsampling.Result<Point> {
        Downsampling.minMax(
            points, start: points.first?.time ?? 0, end: points.last?.time ?? 0, maximumPoints: maximumPoints, time: \.time, values: \.values)
    }

    /// Up to 400 points a minute apart, each with two values (as a blood pressure has).
    static let series = Gen.double(in: 0...300).array(of: 0...800).map { numbers in
        stride(from: 0, to: numbers.count - 1, by: 2).map { Point(time: Double($0) * 30, values: [numbers[$0], numbers[$0 + 1]]) }
    }

    @Test("a short series comes back as it is, with no bucket")
    func short() {
        let points = (0..<10).map { Point(time: Double($0), values: [Double($0)]) }
        let result = Self.thin(points, maximumPoints: 10)
        #expect(result.points == points && result.bucketSeconds == nil)
    }

    @Test("a spike a single point wide survives thinning 100,000 points to 200")
    func spike() {
        var points = (0..<100_000).map { Point(time: Double($0), values: [120 + Double($0 % 7)]) }
        points[54_321] = Point(time: 54_321, values: [230])
        points[77_777] = Point(time: 77_777, values: [60])
        let result = Self.thin(points, maximumPoints: 200)
        #expect(result.points.count <= 200)
        #expect(result.points.contains(points[54_321]) && result.points.contains(points[77_777]))
        #expect(result.bucketSeconds.map { $0 >= 999 && $0 <= 1_000 } == true)
    }

    @Test("never more than asked, a subset in time order, and every value's extremes kept")
    func invariants() async {
        await propertyCheck(input: Self.series, Gen.int(in: 4...60)) { points, maximum in
            let result = Self.thin(points, maximumPoints: maximum)
            #expect(result.points.count <= maximum)
            #expect(zip(result.points, result.points.dropFirst()).allSatisfy { $0.time < $1.time })
            #expect(result.points.allSatisfy { kept in points.contains(kept) })
            for value in 0..<2 where !points.isEmpty {
                #expect(result.points.map { $0.values[value] }.max() == points.map { $0.values[value] }.max())
                #expect(result.points.map { $0.values[value] }.min() == points.map { $0.values[value] }.min())
            }
        }
    }

    @Test("a point far before a short period falls in its first bucket, not a trap")
    func farOutside() {
        // (time − start) / width was converted to Int unchecked: infinite here.
        let points = (0..<100).map { Point(time: $0 < 50 ? -1e300 : 0, values: [Double($0)]) }
        let result = Downsampling.minMax(points, start: 0, end: 0, maximumPoints: 10, time: \.time, values: \.values)
        #expect(result.points.count <= 10 && result.points.contains(points[0]) && result.points.contains(points[99]))
    }
}
