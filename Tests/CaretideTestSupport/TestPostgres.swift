public import CaretideLocalStack
public import CaretideStore
import Foundation
public import Logging
import Synchronization

/// One private PostgreSQL cluster per test process (Debian's binaries, started by the tests themselves), and a fresh
/// database per test so that tests never see each other's rows. The cluster is stopped when the process ends, however
/// it ends (`StopAtExit`).
public enum TestPostgres {
    private static let shared = Task<LocalPostgres, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-tests-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // World-traversable so that the postgres system user can reach its data directory when tests run as root.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        // Every test's services hold pools of their own (up to 20 connections each) and tests run side by side: at
        // 200 connections a pg_dump was once refused for want of a slot.
        let server = try await LocalPostgres.start(
            in: directory, fsync: false, settings: ["max_connections": "1000"], logger: TestLogging.logger("postgres"))
        try await StopAtExit.register(server, directory: directory)
        return server
    }

    /// A cluster of the test's own, for a test that restarts it; `stop` removes it. Under `.stoppingStacks` it is
    /// stopped when the test ends, whatever the outcome, if the test has not stopped it (after the stacks the test
    /// started later, which may run on it); and in any case when the test process ends.
    public static func privateCluster() async throws -> (server: LocalPostgres, stop: @Sendable () async -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-private-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let server = try await LocalPostgres.start(in: directory, fsync: false, logger: TestLogging.logger("postgres"))
        try await StopAtExit.register(server, directory: directory)
        // Called by the test, then again when the test ends: only the first call acts.
        let once = Once()
        let stop: @Sendable () async -> Void = {
            guard once.claim() else { return }
            await server.stop()
            StopAtExit.forget(directory)
            try? FileManager.default.removeItem(at: directory)
        }
        StackRegistry.current?.add(stop)
        return (server, stop)
    }

    /// A new, empty database on the shared cluster.
    public static func freshDatabase() async throws -> DatabaseConfiguration {
        let server = try await shared.value
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await server.createDatabase(String(name))
        return server.configuration(database: String(name))
    }
}

/// Stops the clusters when the test process ends, so no server outlives the tests: at `exit`, by an `atexit` handler;
/// after a crash or a SIGKILL (a runner stopping a stuck run), which run no handler, by each cluster's exit watcher.
private enum StopAtExit {
    private static let clusters = Mutex<[URL: (server: LocalPostgres, watcher: ExitWatcher)]>([:])

    private static let handler: Int32 = atexit {
        for (directory, cluster) in StopAtExit.clusters.withLock({ $0 }) {
            cluster.server.stopBlocking()
            cluster.watcher.disarm()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Registers a cluster just started; stops it and throws if its watcher cannot be started.
    static func register(_ server: LocalPostgres, directory: URL) async throws {
        _ = handler
        let watcher: ExitWatcher
        do {
            watcher = try server.stopWhenThisProcessEnds()
        } catch {
            await server.stop()
            throw error
        }
        clusters.withLock { $0[directory] = (server, watcher) }
    }

    /// Forgets a cluster the test stopped itself, and ends its watcher.
    static func forget(_ directory: URL) {
        clusters.withLock { $0.removeValue(forKey: directory) }?.watcher.disarm()
    }
}

/// Whether something was done already, for what may be asked for twice.
private final class Once: Sendable {
    private let done = Atomic<Bool>(false)

    /// True for the first call only.
    func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }
}

public enum TestLogging {
    /// Quiet by default (a run of every test wrote 8,000 lines of "request answered" before); `CARETIDE_TEST_LOG=debug`
    /// shows the services' logs.
    public static let level = ProcessInfo.processInfo.environment["CARETIDE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning

    public static func logger(_ label: String) -> Logger {
        var logger = Logger(label: "caretide.tests.\(label)")
        logger.logLevel = level
        return logger
    }
}
