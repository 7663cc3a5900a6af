import Synchronization

/// What a service has reached on its way up, shared by the start-up steps, the consumer, the relay and `/readyz`.
public final class ReadinessState: Sendable {
    private let migrated = Atomic<Bool>(false)

    public init() {}

    public var isMigrated: Bool { migrated.load(ordering: .acquiring) }

    public func markMigrated() { migrated.store(true, ordering: .releasing) }

    /// Returns once the schema is migrated. Polls briefly rather than parking a continuation, so that cancellation
    /// (shutdown before the database ever came up) ends the wait at once.
    public func waitUntilMigrated() async throws {
        while !isMigrated {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
