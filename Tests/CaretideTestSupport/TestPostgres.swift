public import CaretideLocalStack
public import CaretideStore
import Foundation
public import Logging
import Synchronization

/// One private PostgreSQL cluster per test process (Debian's binaries, started by the tests themselves), and a fresh
/// database per test so that tests never see each other's rows. The cluster is stopped when the process exits.
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
        StopAtExit.register(server, directory: directory)
        return server
    }

    /// A cluster of the test's own, for a test that restarts it; `stop` removes it.
    public static func privateCluster() async throws -> (server: LocalPostgres, stop: @Sendable () async -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-private-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let server = try await LocalPostgres.start(in: directory, fsync: false, logger: TestLogging.logger("postgres"))
        // Stopped at exit too, should the test fail before it stops the cluster itself.
        StopAtExit.register(server, directory: directory)
        return (
            server,
            {
                await server.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        )
    }

    /// A new, empty database on the shared cluster.
    public static func freshDatabase() async throws -> DatabaseConfiguration {
        let server = try await shared.value
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await server.createDatabase(String(name))
        return server.configuration(database: String(name))
    }
}

/// Stops the clusters when the test process exits, so no server outlives the tests.
private enum StopAtExit {
    private static let clusters = Mutex<[(LocalPostgres, URL)]>([])

    static func register(_ server: LocalPostgres, directory: URL) {
        let first = clusters.withLock { clusters in
            clusters.append((server, directory))
            return clusters.count == 1
        }
        guard first else { return }
        atexit {
            for (server, directory) in StopAtExit.clusters.withLock({ $0 }) {
                server.stopBlocking()
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }
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
