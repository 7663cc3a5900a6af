public import CaretideImaging
public import CaretideRuntime

/// What an operator sets for skin photos; the defaults are ``PhotoInspection/Limits/standard``.
/// - `PHOTO_MAX_BYTES`: the largest file accepted (default 15 MiB; at most 32 MiB, the column's bound).
/// - `PHOTO_MAX_PIXELS`: the most pixels a header may declare (default 50,000,000): with `PHOTO_CONCURRENT_CHECKS` it
///   bounds the memory checks take (3 bytes a pixel for each photo being decoded).
/// - `PHOTO_MIN_SHARPNESS`: the lowest variance of the Laplacian accepted (default 20; docs/operations.md).
/// - `PHOTO_CONCURRENT_CHECKS`: how many photos are decoded at once (default 2); the others wait their turn.
public struct PhotoSettings: Sendable, Equatable {
    public static let largestStoredBytes = 32 * 1024 * 1024

    public var limits: PhotoInspection.Limits
    public var concurrentChecks: Int

    public init(limits: PhotoInspection.Limits = .standard, concurrentChecks: Int = 2) {
        self.limits = limits
        self.concurrentChecks = concurrentChecks
    }

    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidConfiguration) -> PhotoSettings {
        var settings = PhotoSettings()
        var problems: [String] = []
        func whole(_ name: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) {
            guard let text = environment[name] else { return }
            if let value = Int(text), range.contains(value) {
                apply(value)
            } else {
                problems.append("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
        }
        whole("PHOTO_MAX_BYTES", 1024...largestStoredBytes) { settings.limits.maximumBytes = $0 }
        whole("PHOTO_MAX_PIXELS", 89_401...400_000_000) { settings.limits.maximumPixels = $0 }
        whole("PHOTO_MIN_SHARPNESS", 0...100_000) { settings.limits.minimumSharpness = Double($0) }
        whole("PHOTO_CONCURRENT_CHECKS", 1...64) { settings.concurrentChecks = $0 }
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
        return settings
    }
}
