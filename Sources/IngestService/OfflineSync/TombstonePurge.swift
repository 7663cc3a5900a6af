public import CaretideRuntime
import CaretideStore
import Foundation

/// How long offline sync keeps what it needs.
public struct SyncSettings: Sendable, Equatable {
    /// Tombstones (deleted records) are kept this long, unless every device that reads the patient's feed has read
    /// past them sooner; a cursor from before a purged tombstone is told to resync. `SYNC_TOMBSTONE_RETENTION_DAYS`,
    /// default 90.
    public var tombstoneRetention: Duration
    /// How often the purge runs. `SYNC_PURGE_INTERVAL_SECONDS`, default 3600.
    public var purgeInterval: Duration

    public init(tombstoneRetention: Duration = .seconds(90 * 86_400), purgeInterval: Duration = .seconds(3600)) {
        self.tombstoneRetention = tombstoneRetention
        self.purgeInterval = purgeInterval
    }

    /// The settings from the environment, or an error naming each variable that is not a whole number in range.
    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidConfiguration) -> SyncSettings {
        var settings = SyncSettings()
        var problems: [String] = []
        if let text = environment["SYNC_TOMBSTONE_RETENTION_DAYS"] {
            if let days = Int(text), (0...36_500).contains(days) {
                settings.tombstoneRetention = .seconds(days * 86_400)
            } else {
                problems.append("SYNC_TOMBSTONE_RETENTION_DAYS must be a whole number of days from 0 to 36500")
            }
        }
        if let text = environment["SYNC_PURGE_INTERVAL_SECONDS"] {
            if let seconds = Int(text), (1...86_400).contains(seconds) {
                settings.purgeInterval = .seconds(seconds)
            } else {
                problems.append("SYNC_PURGE_INTERVAL_SECONDS must be a whole number of seconds from 1 to 86400")
            }
        }
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
        return settings
    }
}

/// Removes old tombstones in batches every `purgeInterval` (`ChangeFeedStore.purgeTombstones`).
enum TombstonePurge {
    static let batchSize = 1_000

    static func job(settings: SyncSettings, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "sync tombstone purge", interval: settings.purgeInterval, fullBatch: batchSize, context: context) {
            let cutoff = Date().addingTimeInterval(-Double(settings.tombstoneRetention.components.seconds))
            return try await ChangeFeedStore.purgeTombstones(
                before: cutoff, limit: batchSize, database: context.database, timeout: context.limits.transactionTimeout, logger: context.logger)
        }
    }
}
