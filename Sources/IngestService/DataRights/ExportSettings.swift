public import CaretideRuntime
import Foundation
import Synchronization

/// Where a patient's export gathers its parts, and how long it is offered:
/// - `EXPORT_SOURCES`: the base URLs of the other services (scoring, notification, diagnosis), separated by spaces or
///   commas, e.g. `http://scoring-service:8081 http://notification-service:8082 http://diagnosis-service:8083`. Each
///   answers its part at `GET /v1/patients/{patientId}/export-part`, asked with the patient's own token.
/// - `EXPORT_RETENTION_HOURS`: how long a finished export can be downloaded (default 168, a week).
public final class ExportSettings: Sendable {
    private let sources: Mutex<[String]>
    public let retention: Duration
    /// How often expired exports are deleted and interrupted assemblies marked failed (`ExportStore.purgeJob`).
    public let purgeInterval: Duration

    public init(sources: [String] = [], retention: Duration = .seconds(7 * 24 * 3600), purgeInterval: Duration = .seconds(60)) {
        self.sources = Mutex(sources)
        self.retention = retention
        self.purgeInterval = purgeInterval
    }

    public var sourceURLs: [String] { sources.withLock { $0 } }

    /// The other services' base URLs, for a stack whose ports are known only once it runs (the tests).
    public func setSources(_ urls: [String]) { sources.withLock { $0 = urls } }

    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidConfiguration) -> ExportSettings {
        var problems: [String] = []
        let urls = (environment["EXPORT_SOURCES"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        for url in urls where URL(string: url).map({ ["http", "https"].contains($0.scheme ?? "") && $0.host != nil }) != true {
            problems.append("EXPORT_SOURCES: \(url) is not an http(s) base URL")
        }
        var retention = Duration.seconds(7 * 24 * 3600)
        if let text = environment["EXPORT_RETENTION_HOURS"] {
            if let hours = Int(text), (1...24 * 90).contains(hours) {
                retention = .seconds(hours * 3600)
            } else {
                problems.append("EXPORT_RETENTION_HOURS must be a whole number of hours from 1 to 2160")
            }
        }
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
        return ExportSettings(sources: urls.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }, retention: retention)
    }
}
