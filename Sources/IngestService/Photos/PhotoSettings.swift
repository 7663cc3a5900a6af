public import CaretideImaging
public import CaretideRuntime
import Foundation

/// What an operator sets for skin photos; the defaults are ``PhotoInspection/Limits/standard``.
/// - `PHOTO_MAX_BYTES`: the largest file accepted (default 15 MiB; at most 32 MiB, the column's bound).
/// - `PHOTO_MAX_PIXELS`: the most pixels a header may declare (default 50,000,000): with `PHOTO_CONCURRENT_CHECKS` it
///   bounds the memory checks take (3 bytes a pixel for each photo being decoded; a HEIF photo may have half as many
///   pixels, its decoding taking 6 bytes a pixel).
/// - `PHOTO_MIN_SHARPNESS`: the lowest variance of the Laplacian accepted (default 20; docs/operations.md).
/// - `PHOTO_CONCURRENT_CHECKS`: how many photos are decoded at once (default 2); the others wait their turn.
/// - `PHOTO_LINK_KEY`: the key (base64, at least 32 bytes) that signs the links `lesion-photo.recorded` carries; the
///   same on every replica. Unset, each replica makes its own at start, and a link works only on the one that made it.
/// - `PHOTO_LINK_BASE_URL`: ingest's address as the classifiers reach it, prefixed to the links (else a path).
/// - `PHOTO_LINK_TTL_SECONDS`: how long a link works (default 3600).
public struct PhotoSettings: Sendable, Equatable {
    public static let largestStoredBytes = 32 * 1024 * 1024

    public var limits: PhotoInspection.Limits
    public var concurrentChecks: Int
    public var linkKey: [UInt8]?
    public var linkBaseURL: String?
    public var linkLifetimeSeconds: Int

    public init(
        limits: PhotoInspection.Limits = .standard, concurrentChecks: Int = 2, linkKey: [UInt8]? = nil, linkBaseURL: String? = nil,
        linkLifetimeSeconds: Int = 3600
    ) {
        self.limits = limits
        self.concurrentChecks = concurrentChecks
        self.linkKey = linkKey
        self.linkBaseURL = linkBaseURL
        self.linkLifetimeSeconds = linkLifetimeSeconds
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
        whole("PHOTO_LINK_TTL_SECONDS", 60...86_400) { settings.linkLifetimeSeconds = $0 }
        if let text = environment["PHOTO_LINK_KEY"] {
            if let key = Data(base64Encoded: text), key.count >= 32 {
                settings.linkKey = Array(key)
            } else {
                problems.append("PHOTO_LINK_KEY must be at least 32 bytes in base64 (e.g. openssl rand -base64 32)")
            }
        }
        if let text = environment["PHOTO_LINK_BASE_URL"] {
            if let url = URL(string: text), ["http", "https"].contains(url.scheme), url.host != nil, url.query == nil {
                settings.linkBaseURL = text
            } else {
                problems.append("PHOTO_LINK_BASE_URL must be an http or https URL without a query, e.g. https://ingest.example.org")
            }
        }
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
        return settings
    }
}
