public import CaretideStore
public import Foundation
public import Logging

/// A private PostgreSQL cluster for `caretide dev` and the tests: Debian's `postgresql` binaries (initdb, pg_ctl) run
/// on a data directory inside a state directory, listening on a free loopback port.
///
/// Every connection authenticates with SCRAM-SHA-256: any local user can reach a loopback port, so trust would make
/// each of them a superuser. Passwords are generated at initialisation and kept in `postgres-credentials.json` beside
/// the data directory (mode 0600). The services connect as `caretide`, which owns the databases but is no superuser;
/// the superuser `postgres` only creates databases (and extensions for the benchmarks).
///
/// PostgreSQL refuses to run as root, so when started by root the cluster belongs to the `postgres` system user and
/// its commands run through `runuser`.
public final class LocalPostgres: Sendable {
    public let dataDirectory: URL
    public let port: Int
    public let credentials: Credentials
    let binDirectory: URL
    let runAsPostgresUser: Bool
    let logger: Logger

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The generated passwords of a cluster.
    public struct Credentials: Codable, Sendable {
        public static let superuser = "postgres"
        public static let serviceUser = "caretide"
        public var superuserPassword: String
        public var servicePassword: String

        static func generate() -> Credentials {
            func password() -> String {
                var generator = SystemRandomNumberGenerator()
                return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            }
            return Credentials(superuserPassword: password(), servicePassword: password())
        }
    }

    /// The `caretide` database of the cluster, as the services' role.
    public var configuration: DatabaseConfiguration { configuration(database: "caretide") }

    /// `database` as the services' role (`caretide`, no superuser).
    public func configuration(database: String) -> DatabaseConfiguration {
        DatabaseConfiguration(
            host: "127.0.0.1", port: port, username: Credentials.serviceUser, password: credentials.servicePassword, database: database)
    }

    /// `database` as the superuser, for what only it may do (a benchmark's `CREATE EXTENSION pg_stat_statements`).
    public func superuserConfiguration(database: String = "caretide") -> DatabaseConfiguration {
        DatabaseConfiguration(
            host: "127.0.0.1", port: port, username: Credentials.superuser, password: credentials.superuserPassword, database: database)
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
        let credentials = try await initialiseIfNeeded(
            dataDirectory: dataDirectory, stateDirectory: stateDirectory, binDirectory: binDirectory, runAsPostgresUser: runAsPostgres,
            logger: logger)
        // A port found free stays free only until another socket binds it: the port is found after initdb, which takes
        // seconds, and found again if the server could not bind it (tests open many connections side by side, and one
        // took the port of the tests' cluster once, failing every test that needed it).
        var attempt = 1
        while true {
            let server = LocalPostgres(
                dataDirectory: dataDirectory, port: try FreePort.find(), credentials: credentials, binDirectory: binDirectory,
                runAsPostgresUser: runAsPostgres, logger: logger)
            let logged = server.serverLogSize()
            do {
                try await server.startServer(fsync: fsync, settings: settings)
            } catch {
                guard attempt < 3, server.serverLog(since: logged).contains("Address already in use") else {
                    // pg_ctl stops waiting after 60 s, but the server it started may still come up; nobody would stop
                    // a server whose start threw.
                    await server.stopIfRunning()
                    throw error
                }
                logger.info("PostgreSQL's port was taken before it started; trying another", metadata: [StoreLogKey.port: "\(server.port)"])
                attempt += 1
                continue
            }
            do {
                try await server.createDatabase("caretide")
            } catch {
                await server.stopIfRunning()
                throw error
            }
            return server
        }
    }

    init(dataDirectory: URL, port: Int, credentials: Credentials, binDirectory: URL, runAsPostgresUser: Bool, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.port = port
        self.credentials = credentials
        self.binDirectory = binDirectory
        self.runAsPostgresUser = runAsPostgresUser
        self.logger = logger
    }

    /// Stops the server (fast shutdown: open sessions are ended, committed data is kept). If that has not finished
    /// within 30 s (a shutdown checkpoint on a loaded machine), an immediate one follows, so a stopped stack never
    /// leaves its server running.
    public func stop() async {
        do {
            try await pgTool("pg_ctl", ["-D", dataDirectory.path, "-m", "fast", "-w", "-t", "30", "stop"])
        } catch {
            logger.warning("PostgreSQL's fast shutdown failed or took over 30 s; stopping it at once", metadata: ["error": "\(error)"])
            _ = try? await pgTool("pg_ctl", ["-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "30", "stop"])
        }
    }

    /// Restarts the server as an operator would (`pg_ctl restart -m fast`: open sessions are ended), on the same port.
    public func restart() async throws {
        try await pgTool("pg_ctl", ["-D", dataDirectory.path, "-m", "fast", "-w", "-t", "60", "restart"])
    }

    /// Stops the server at once and blocks until it is gone (immediate shutdown); for `atexit` handlers.
    public func stopBlocking() {
        let command = immediateStop
        _ = Subprocess.runBlocking(command.executable, command.arguments)
    }

    /// Arms a watcher that stops the server at once when this process ends, however it ends. pg_ctl starts the server
    /// in a session of its own, out of reach of a signal to this process's group, and a crash or a SIGKILL (a test
    /// runner stopping a stuck run) runs no `atexit` handler: the server would outlive the process that owns it.
    /// `disarm()` the watcher once the server is stopped the ordinary way.
    public func stopWhenThisProcessEnds() throws -> ExitWatcher {
        let command = immediateStop
        return try ExitWatcher.arm(command.executable, command.arguments)
    }

    /// pg_ctl's immediate shutdown of this server, run as the server's user; it finds the server through the data
    /// directory, and does nothing when none runs there.
    private var immediateStop: (executable: String, arguments: [String]) {
        let pgCtl = binDirectory.appendingPathComponent("pg_ctl").path
        let arguments = ["-D", dataDirectory.path, "-m", "immediate", "-w", "stop"]
        return runAsPostgresUser ? ("/sbin/runuser", ["-u", "postgres", "--", pgCtl] + arguments) : (pgCtl, arguments)
    }

    /// Creates a database owned by the services' role unless it exists.
    public func createDatabase(_ name: String) async throws {
        precondition(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "database names here are generated identifiers")
        let exists = try await psql("SELECT 1 FROM pg_database WHERE datname = '\(name)'")
        if exists.trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            try await psql("CREATE DATABASE \(name) OWNER \(Credentials.serviceUser)")
        }
    }

    /// Runs one SQL command as the superuser; its password travels in the environment, never on a command line
    /// (which every local user can read in the process list).
    @discardableResult
    private func psql(_ command: String) async throws -> String {
        let arguments = [
            "-X", "-q", "-tA", "-h", "127.0.0.1", "-p", String(port), "-U", Credentials.superuser, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c",
            command,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = credentials.superuserPassword
        return try await pgTool("psql", arguments, environment: environment)
    }

    private static let credentialsFileName = "postgres-credentials.json"

    /// Initialises a new cluster with SCRAM authentication and generated passwords, or reads the passwords of an
    /// existing one.
    private static func initialiseIfNeeded(
        dataDirectory: URL, stateDirectory: URL, binDirectory: URL, runAsPostgresUser: Bool, logger: Logger
    ) async throws -> Credentials {
        let fileManager = FileManager.default
        let credentialsFile = stateDirectory.appendingPathComponent(credentialsFileName)
        if fileManager.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            guard let data = fileManager.contents(atPath: credentialsFile.path),
                let credentials = try? JSONDecoder().decode(Credentials.self, from: data)
            else {
                throw Unavailable(
                    description: """
                        \(dataDirectory.path) has no \(credentialsFileName) beside it: it was made by an older caretide with trust \
                        authentication, or its initialisation did not finish. Remove that directory and start again; a new cluster \
                        gets generated passwords
                        """)
            }
            return credentials
        }
        try fileManager.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        if runAsPostgresUser {
            try await Subprocess.check("/bin/chown", ["-R", "postgres:postgres", dataDirectory.path])
            // Every folder above the data directory must let the postgres user through (a checkout under /root does not).
            let reachable = try await Subprocess.run("/sbin/runuser", ["-u", "postgres", "--", "/usr/bin/test", "-w", dataDirectory.path])
            guard reachable.status == 0 else {
                throw Unavailable(
                    description: """
                        the postgres system user cannot reach \(dataDirectory.path) (PostgreSQL refuses to run as root, so the \
                        private cluster runs as postgres): choose a state directory it can reach, e.g. --state-dir /var/tmp/caretide
                        """)
            }
        }
        try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dataDirectory.path)
        logger.info("initialising a private PostgreSQL cluster", metadata: [StoreLogKey.directory: "\(dataDirectory.path)"])
        let credentials = Credentials.generate()
        // initdb reads the superuser's password from a file: beside the data directory (which initdb wants empty),
        // readable by initdb's user alone, and only for the call.
        let passwordFile = dataDirectory.deletingLastPathComponent().appendingPathComponent(".initdb-\(getpid()).pwfile")
        guard
            fileManager.createFile(
                atPath: passwordFile.path, contents: Data(credentials.superuserPassword.utf8), attributes: [.posixPermissions: 0o600])
        else { throw Unavailable(description: "could not write \(passwordFile.path)") }
        defer { try? fileManager.removeItem(at: passwordFile) }
        if runAsPostgresUser { try await Subprocess.check("/bin/chown", ["postgres:postgres", passwordFile.path]) }
        try await run(
            binDirectory.appendingPathComponent("initdb").path, asPostgresUser: runAsPostgresUser,
            [
                "-D", dataDirectory.path, "-U", Credentials.superuser, "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                "--locale=C", "--no-sync",
            ])
        // The services' role: it owns the databases (so migrations create their schemas) and can do nothing else.
        // Created in single-user mode, before the server ever listens.
        let createRole = "CREATE ROLE \(Credentials.serviceUser) LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '\(credentials.servicePassword)'"
        try await singleUser(createRole, dataDirectory: dataDirectory, binDirectory: binDirectory, runAsPostgresUser: runAsPostgresUser)
        // Written last, whole or not at all: a cluster whose initialisation failed half-way has no credentials file,
        // and the next start says so instead of failing authentication.
        let staged = credentialsFile.appendingPathExtension("partial")
        guard fileManager.createFile(atPath: staged.path, contents: try JSONEncoder().encode(credentials), attributes: [.posixPermissions: 0o600]),
            rename(staged.path, credentialsFile.path) == 0
        else { throw Unavailable(description: "could not write \(credentialsFile.path)") }
        return credentials
    }

    /// Runs a program, as the postgres system user when started by root (PostgreSQL refuses to run as root).
    @discardableResult
    private static func run(
        _ executable: String, asPostgresUser: Bool, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> String {
        if asPostgresUser {
            return try await Subprocess.check("/sbin/runuser", ["-u", "postgres", "--", executable] + arguments, environment: environment)
        }
        return try await Subprocess.check(executable, arguments, environment: environment)
    }

    /// Runs one statement in single-user mode (`postgres --single`), the server not running.
    private static func singleUser(_ statement: String, dataDirectory: URL, binDirectory: URL, runAsPostgresUser: Bool) async throws {
        let input = dataDirectory.deletingLastPathComponent().appendingPathComponent(".single-\(getpid()).sql")
        guard FileManager.default.createFile(atPath: input.path, contents: Data((statement + ";\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw Unavailable(description: "could not write \(input.path)") }
        defer { try? FileManager.default.removeItem(at: input) }
        if runAsPostgresUser { try await Subprocess.check("/bin/chown", ["postgres:postgres", input.path]) }
        let postgres = binDirectory.appendingPathComponent("postgres").path
        // Standard input of a child is /dev/null here, so a shell feeds the statement from the file.
        let command = "\"$0\" --single -D \"$1\" postgres < \"$2\""
        try await run("/bin/sh", asPostgresUser: runAsPostgresUser, ["-c", command, postgres, dataDirectory.path, input.path])
    }

    private var serverLogPath: String { dataDirectory.appendingPathComponent("server.log").path }

    /// How long the server's log is: where the next start's lines begin.
    private func serverLogSize() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: serverLogPath))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The server's log from `offset` on, or nothing if it cannot be read.
    private func serverLog(since offset: UInt64) -> String {
        guard let file = FileHandle(forReadingAtPath: serverLogPath) else { return "" }
        defer { try? file.close() }
        guard (try? file.seek(toOffset: offset)) != nil, let data = try? file.readToEnd() else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The server settings every cluster starts with; a setting given to `start` replaces its default.
    /// - autovacuum looks at each database every 5 s instead of every minute: a new table's first statistics come
    ///   within seconds of its first writes, not after a minute of plans made without any (docs/operations.md,
    ///   "PostgreSQL settings").
    static let defaultSettings = ["max_connections": "200", "autovacuum_naptime": "5"]

    /// A server setting as a command line gives it, `name=value`, split at its first `=`; nil unless both sides are
    /// there (`caretide dev --postgres-setting`, the benches).
    public static func setting(parsing text: String) -> (name: String, value: String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    private func startServer(fsync: Bool, settings: [String: String]) async throws {
        // A server left running by an earlier run that was killed: stop it, then start on the new port.
        await stopIfRunning()
        let logFile = serverLogPath
        var options = "-p \(port) -c listen_addresses=127.0.0.1 -k \(dataDirectory.path)"
        if !fsync { options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        let chosen = Self.defaultSettings.merging(settings) { _, given in given }
        for (name, value) in chosen.sorted(by: { $0.key < $1.key }) { options += " -c \(name)=\(value)" }
        try await pgTool("pg_ctl", ["-D", dataDirectory.path, "-l", logFile, "-w", "-t", "60", "-o", options, "start"])
        logger.info("PostgreSQL started", metadata: [StoreLogKey.port: "\(port)"])
    }

    /// Stops the server if one runs on the data directory (`pg_ctl status` exits with 0 only then).
    private func stopIfRunning() async {
        if (try? await pgTool("pg_ctl", ["-D", dataDirectory.path, "status"])) != nil {
            await stop()
        }
    }

    @discardableResult
    private func pgTool(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> String {
        try await Self.run(binDirectory.appendingPathComponent(tool).path, asPostgresUser: runAsPostgresUser, arguments, environment: environment)
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
