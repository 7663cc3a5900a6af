import CaretideRuntime
public import CaretideSchemas
public import CaretideStore
public import Logging
public import PhenotypeRanking
import ServiceLifecycle
import Synchronization

/// The release diagnosis-service answers with. A newer release is built completely in the background and then
/// swapped in whole: requests never wait for a reload, and a request keeps the release it started with.
final class ReleaseCatalog: Sendable {
    private let current = Mutex<ServingRelease?>(nil)

    var release: ServingRelease? { current.withLock { $0 } }

    func replace(with release: ServingRelease) {
        current.withLock { $0 = release }
    }
}

/// Watches PostgreSQL for a newer release (imported by `caretide hpo import`, by an update event, or by another
/// instance) and loads it into the catalog. Polling a one-row query every couple of seconds is cheap and survives
/// database restarts without the bookkeeping a LISTEN connection needs.
struct ReleaseWatcher: Service {
    let catalog: ReleaseCatalog
    let context: ServiceContext
    var interval: Duration = .seconds(2)

    func run() async throws {
        let logger = context.logger
        try? await cancelWhenGracefulShutdown {
            guard await context.readiness.waitUntilMigrated(unless: { Task.isCancelled }) else { return }
            var failedReleaseID: Int?
            while !Task.isCancelled {
                do {
                    if let newest = try await ReleaseStore(context).newestReleaseID(),
                        newest != catalog.release?.reference.releaseID, newest != failedReleaseID
                    {
                        do {
                            try await load(releaseID: newest)
                            failedReleaseID = nil
                        } catch  where !TransientError.isTransient(error) {
                            // A release that cannot be built is not retried every poll; the current one keeps serving.
                            failedReleaseID = newest
                            logger.error("ontology release cannot be loaded", metadata: [LogKey.releaseID: "\(newest)", LogKey.error: "\(error)"])
                        }
                    }
                } catch {
                    logger.warning("cannot check for a newer ontology release", metadata: [LogKey.error: "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    private func load(releaseID: Int) async throws {
        let logger = context.logger
        let start = ContinuousClock.now
        guard let release = try await ServingRelease.load(releaseID: releaseID, from: ReleaseStore(context)) else { return }
        catalog.replace(with: release)
        if let pooling = release.knowledgeBase?.pooling, pooling != .current {
            logger.warning(
                "ontology release imported under an earlier rule for pooling sources: it keeps that rule until imported again",
                metadata: [LogKey.releaseID: "\(releaseID)", LogKey.pooling: "\(pooling.rawValue)"])
        }
        logger.info(
            "ontology release serving",
            metadata: [
                LogKey.releaseID: "\(releaseID)", LogKey.kind: "\(release.reference.kind.rawValue)", LogKey.terms: "\(release.ontology.termCount)",
                LogKey.diseases: "\(release.knowledgeBase?.diseaseCount ?? 0)", LogKey.seconds: "\((ContinuousClock.now - start).seconds)",
            ])
    }
}

/// Reading releases the way the service does, for tools outside it (`caretide-bench phenotype`).
public enum OntologyReleases {
    /// The newest stored release, built into its ranker (`nil` for a minimum update), or `nil` without any release.
    public static func loadNewest(
        _ database: Database, logger: Logger
    ) async throws -> (reference: OntologyReleaseReference, ranker: PhenotypeRanker?)? {
        let store = ReleaseStore(database: database, logger: logger)
        guard let releaseID = try await store.newestReleaseID(), let release = try await ServingRelease.load(releaseID: releaseID, from: store)
        else { return nil }
        return (release.reference, release.ranker)
    }

    /// The newest stored release's id, or `nil` without any.
    public static func newestReleaseID(_ database: Database, logger: Logger) async throws -> Int? {
        try await ReleaseStore(database: database, logger: logger).newestReleaseID()
    }
}
