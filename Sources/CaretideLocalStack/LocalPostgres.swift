import CaretideStore
import Foundation
import Logging

/// A private PostgreSQL cluster for `caretide dev` and the tests: Debian's `postgresql` binaries (initdb, pg_ctl) run
/// on a data directory inside a state directory, listening on a free loopback port with trust authentication.
///
/// PostgreSQL refuses to run as root, so when started by root the cluster belongs to the `postgres` system user and
/// its commands run through `runuser`.
public final class LocalPostgres: Sendable {
    public let dataDirectory: URL
    public let port: Int
    public let superuser = "caretide"
    let binDirectory: URL
    let runAsPostgresUser: Bool
    let logger: Logger

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The `caretide` database of the cluster.
    public var configuration: DatabaseConfiguration { configuration(database: "caretide") }

    public func configuration(database: String) -> DatabaseConfiguration {
        DatabaseConfiguration(host: "127.0.0.1", port: port, username: superuser, database: database)
    }

    /// Initialises the cluster if the directory is new, starts it (stopping a server left over from an earlier run
    /// first) and creates the `caretide` database.
    /// - Parameter settings: extra server settings (`-c name=value`), e.g. `track_commit_timestamp` for a benchmark.
    public static func start(
        in stateDirectory: URL, fsync: Bool = true, settings: [String: String] = [:], logger: Logger
    ) async throws -> LocalPostgres {
        let binDirectory = try findBinDirectory()
        let runAsPostgres = geteuid() == 0
        let dataDirectory = stateDirectory.appendingPathComponent("postgres", isDirectory: true)
        let port = try FreePort.find()
        let server = LocalPostgres(
            dataDirectory: dataDirectory, port: port, binDirectory: binDirectory, runAsPostgresUser: runAsPostgres, logger: logger)
        try await server.initialiseIfNeeded()
        try await server.startServer(fsync: fsync, settings: settings)
        try await server.createDatabase("caretide")
        return server
    }

    init(dataDirectory: URL, port: Int, binDirectory: URL, runAsPostgresUser: Bool, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.port = port
        self.binDirectory = binDirectory
        self.runAsPostgresUser = runAsPostgresUser
        self.logger = logger
    }

    /// Stops the server (fast shutdown: open sessions are ended, committed data is kept).
    public func stop() async {
        _ = try? await pgTool("pg_ctl", ["-D", dataDirectory.path, "-m", "fast", "-w", "-t", "30", "stop"])
    }

    /// Stops the server at once and blocks until it is gone (immediate shutdown); for `atexit` handlers.
    public func stopBlocking() {
        let pgCtl = binDirectory.appendingPathComponent("pg_ctl").path
        let arguments = ["-D", dataDirectory.path, "-m", "immediate", "-w", "stop"]
        _ = runAsPostgresUser
            ? Subprocess.runBlocking("/sbin/runuser", ["-u", "postgres", "--", pgCtl] + arguments)
            : Subprocess.runBlocking(pgCtl, arguments)
    }

    /// Creates a database unless it exists.
    public func createDatabase(_ name: String) async throws {
        precondition(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "database names here are generated identifiers")
        let exists = try await pgTool("psql", psqlArguments + ["-tAc", "SELECT 1 FROM pg_database WHERE datname = '\(name)'"])
        if exists.trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            try await pgTool("psql", psqlArguments + ["-c", "CREATE DATABASE \(name)"])
        }
    }

    private var psqlArguments: [String] { ["-X", "-q", "-h", "127.0.0.1", "-p", String(port), "-U", superuser, "-d", "postgres", "-v", "ON_ERROR_STOP=1"] }

    private func initialiseIfNeeded() async throws {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) { return }
        try fileManager.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        if runAsPostgresUser {
            try await Subprocess.check("/bin/chown", ["-R", "postgres:postgres", dataDirectory.path])
            // Every folder above the data directory must let the postgres user through (a checkout under /root does not).
            let reachable = try await Subprocess.run("/sbin/runuser", ["-u", "postgres", "--", "/usr/bin/test", "-w", dataDirectory.path])
            guard reachable.status == 0 else {
                throw Unavailable(description: """
                    the postgres system user cannot reach \(dataDirectory.path) (PostgreSQL refuses to run as root, so the \
                    private cluster runs as postgres): choose a state directory it can reach, e.g. --state-dir /var/tmp/caretide
                    """)
            }
        }
        try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dataDirectory.path)
        logger.info("initialising a private PostgreSQL cluster", metadata: ["directory": "\(dataDirectory.path)"])
        try await pgTool("initdb", ["-D", dataDirectory.path, "-U", superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"])
    }

    private func startServer(fsync: Bool, settings: [String: String]) async throws {
        // A server left running by an earlier run that was killed: stop it, then start on the new port.
        if (try? await pgTool("pg_ctl", ["-D", dataDirectory.path, "status"])) != nil {
            await stop()
        }
        let logFile = dataDirectory.appendingPathComponent("server.log").path
        var options = "-p \(port) -c listen_addresses=127.0.0.1 -k \(dataDirectory.path) -c max_connections=200"
        if !fsync { options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) { options += " -c \(name)=\(value)" }
        try await pgTool("pg_ctl", ["-D", dataDirectory.path, "-l", logFile, "-w", "-t", "60", "-o", options, "start"])
        logger.info("PostgreSQL started", metadata: ["port": "\(port)"])
    }

    @discardableResult
    private func pgTool(_ tool: String, _ arguments: [String]) async throws -> String {
        let executable = binDirectory.appendingPathComponent(tool).path
        if runAsPostgresUser {
            return try await Subprocess.check("/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
        }
        return try await Subprocess.check(executable, arguments)
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` with initdb, else the directory of `initdb` on PATH.
    static func findBinDirectory() throws -> URL {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = URL(fileURLWithPath: "\(root)/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            if FileManager.default.isExecutableFile(atPath: "\(directory)/initdb") { return URL(fileURLWithPath: String(directory)) }
        }
        throw Unavailable(description: "PostgreSQL's initdb was not found; install Debian's postgresql package (apt-get install postgresql)")
    }
}
