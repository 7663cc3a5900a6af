/// Series too long to draw point by point, thinned on the server so that what a chart shows stays true: the period
/// is cut into buckets of equal time, and each bucket keeps the points that hold the lowest and the highest of each
/// value (per-bucket min/max, the method of M4 and of most time-series databases' chart queries), in time order. A
/// spike or a dip therefore survives any thinning, which an average or every-n-th point would lose; and the global
/// extremes of every value are always kept. A series already short enough is returned as it is.
///
/// Pure: points in, points out. Times are seconds on any scale (`Date.timeIntervalSince1970` in the services).
public enum Downsampling {
    /// The thinned series and the bucket width it was thinned with (nil when nothing was thinned).
    public struct Result<Point> {
        public let points: [Point]
        public let bucketSeconds: Double?
    }

    /// - Parameters:
    ///   - points: the series, in time order.
    ///   - start, end: the period the buckets cover (the request's, or the series' own first and last time).
    ///   - maximumPoints: the most points the answer may hold; at least twice the number of values.
    ///   - time: a point's time in seconds.
    ///   - values: a point's values, the same number for every point (e.g. systolic and diastolic).
    public static func minMax<Point>(
        _ points: [Point], start: Double, end: Double, maximumPoints: Int, time: (Point) -> Double, values: (Point) -> [Double]
    ) -> Result<Point> {
        guard points.count > maximumPoints, let first = points.first else { return Result(points: points, bucketSeconds: nil) }
        let valueCount = max(1, values(first).count)
        // Each bucket keeps at most two points per value.
        let bucketCount = max(1, maximumPoints / (2 * valueCount))
        let span = max(end - start, time(points[points.count - 1]) - start, 1e-9)
        let width = span / Double(bucketCount)

        var kept: [Int] = []
        kept.reserveCapacity(bucketCount * 2 * valueCount)
        var bucketStart = 0
        // A point's bucket, clamped before it becomes an Int: a point far outside the period must not trap.
        func index(of point: Point) -> Int {
            let position = ((time(point) - start) / width).rounded(.down)
            return position >= Double(bucketCount - 1) ? bucketCount - 1 : position > 0 ? Int(position) : 0
        }
        while bucketStart < points.count {
            let bucket = index(of: points[bucketStart])
            var bucketEnd = bucketStart + 1
            while bucketEnd < points.count, index(of: points[bucketEnd]) == bucket {
                bucketEnd += 1
            }
            kept.append(contentsOf: extremes(in: bucketStart..<bucketEnd, of: points, valueCount: valueCount, values: values))
            bucketStart = bucketEnd
        }
        return Result(points: kept.map { points[$0] }, bucketSeconds: width)
    }

    /// The indices of the first point holding each value's minimum and maximum within `range`, in time order.
    static func extremes<Point>(in range: Range<Int>, of points: [Point], valueCount: Int, values: (Point) -> [Double]) -> [Int] {
        var lowest = [Int](repeating: range.lowerBound, count: valueCount)
        var highest = lowest
        var lowValues = [Double](repeating: .infinity, count: valueCount)
        var highValues = [Double](repeating: -.infinity, count: valueCount)
        for index in range {
            let pointValues = values(points[index])
            for value in 0..<min(valueCount, pointValues.count) {
                let v = pointValues[value]
                if v < lowValues[value] { (lowValues[value], lowest[value]) = (v, index) }
                if v > highValues[value] { (highValues[value], highest[value]) = (v, index) }
            }
        }
        return Array(Set(lowest + highest)).sorted()
    }
}
