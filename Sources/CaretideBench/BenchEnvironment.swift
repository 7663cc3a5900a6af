import CaretideLocalStack
import Foundation
import Logging

/// What every bench starts with: a quiet logger and a private PostgreSQL in a temporary directory, fsync on as
/// deployed (`CARETIDE_BENCH_NO_FSYNC=1` turns it off, to see what durability costs).
struct BenchPostgres {
    let server: LocalPostgres
    let directory: URL

    static var logger: Logger {
        var logger = CommandLogging.logger("caretide.bench")
        logger.logLevel = .warning
        return logger
    }

    static func start(settings: [String: String] = [:], logger: Logger) async throws -> BenchPostgres {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let server = try await LocalPostgres.start(
            in: directory, fsync: ProcessInfo.processInfo.environment["CARETIDE_BENCH_NO_FSYNC"] == nil, settings: settings, logger: logger)
        return BenchPostgres(server: server, directory: directory)
    }

    /// Stops the server at once and removes its directory.
    func stop() {
        server.stopBlocking()
        try? FileManager.default.removeItem(at: directory)
    }
}
