import CaretideRuntime
import Foundation

/// Percentiles of measured durations, for the bench reports.
struct LatencySummary {
    let sorted: [Duration]

    init(_ samples: [Duration]) { sorted = samples.sorted() }

    /// The sample at quantile `p` (nearest rank), or nil without samples.
    private func quantile(_ p: Double) -> Duration? {
        guard !sorted.isEmpty else { return nil }
        // bounded: p is a percentile in 0...1 the bench itself chose.
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    func milliseconds(_ p: Double, digits: Int = 1) -> String {
        quantile(p).map { String(format: "%.\(digits)f ms", $0.seconds * 1000) } ?? "n/a"
    }

    func microseconds(_ p: Double) -> String {
        quantile(p).map { String(format: "%.1f µs", $0.seconds * 1_000_000) } ?? "n/a"
    }
}
