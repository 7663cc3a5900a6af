import Synchronization

/// What a service has reached on its way up, shared by the start-up steps, the consumer, the relay and `/readyz`.
public final class ReadinessState: Sendable {
    private let migrated = Atomic<Bool>(false)

    public init() {}

    public var isMigrated: Bool { migrated.load(ordering: .acquiring) }

    public func markMigrated() { migrated.store(true, ordering: .releasing) }

    /// Returns true once the schema is migrated, or false as soon as `stopping` says the service is shutting down
    /// (shutdown before the database ever came up). Polls briefly rather than parking a continuation that shutdown
    /// could strand.
    public func waitUntilMigrated(unless stopping: () -> Bool) async -> Bool {
        while !isMigrated {
            if stopping() || Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
