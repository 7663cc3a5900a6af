import CaretideLocalStack
import CaretideTestSupport
import Foundation
import Testing

/// `caretide dev` as an operator runs it: it brings up the broker, a private PostgreSQL and four services, writes
/// endpoints.json once all are ready, serves `caretide-bench pipeline`, and on SIGTERM stops everything, leaving no
/// process behind.
@Suite(.serialized) struct DevCommandTests {
    struct Endpoints: Decodable {
        let kafka, database, ingest, scoring, notification, diagnosis: String
    }

    /// Alive and not a zombie (in a container nobody may reap an orphaned daemon, so its pid lingers as a zombie).
    /// The process's state and start time (`/proc/<pid>/stat` fields 3 and 22), if it exists.
    static func status(_ pid: Int32) -> (state: Character, started: Substring)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name: state, then fields 4 onwards; the start time is field 22.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first else { return nil }
        return (state, fields[19])
    }

    /// Whether the process that started at `started` still runs: a pid alone is not enough, since pids wrap (at
    /// 32,768 here) and a busy test run can give a stopped postmaster's pid to another process within seconds.
    static func isRunning(_ pid: Int32, started: Substring?) -> Bool {
        guard let now = status(pid), now.started == started else { return false }
        return now.state != "Z" && now.state != "X"
    }

    /// A fresh state directory that PostgreSQL (which runs as another user when the tests run as root) can enter.
    static func stateDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-dev-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        return directory
    }

    /// This process's environment for `caretide dev`, with its own broker and PostgreSQL rather than any named here.
    static func environment(logLevel: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        environment["KAFKA_BROKERS"] = nil
        environment["LOG_LEVEL"] = logLevel
        return environment
    }

    @Test(
        "caretide dev reaches endpoints.json, every /readyz answers 200, the HPO release it is given is imported and ranks, the pipeline bench reconciles against it, SIGTERM leaves nothing running"
    )
    func devStackStartsAndStops() async throws {
        let stateDirectory = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        let environment = Self.environment(logLevel: "warning")
        // The HPO test fixture (a subset of a release) stands in for .hpo-data: imported in seconds.
        let hpo = Paths.packageRoot.appendingPathComponent("Tests/PhenotypeRankingTests/Fixtures").path
        let dev = ServiceProcess(
            name: "caretide", executable: Paths.executable("caretide"), arguments: ["dev", "--state-dir", stateDirectory.path, "--hpo-data", hpo],
            environment: environment)
        try dev.start()
        // Whatever fails below, caretide dev is stopped as an operator stops it, with SIGTERM: it then stops its
        // PostgreSQL (a daemon in a session of its own) and its services, which a SIGKILL would leave running.
        do {
            let file = stateDirectory.appendingPathComponent("endpoints.json")
            try await eventually("endpoints.json", timeout: .seconds(180)) {
                #expect(dev.isRunning, "caretide dev exited early with \(dev.exitCode ?? -1)")
                return FileManager.default.fileExists(atPath: file.path) || !dev.isRunning
            }
            let endpoints = try JSONDecoder().decode(Endpoints.self, from: Data(contentsOf: file))
            let services = [endpoints.ingest, endpoints.scoring, endpoints.notification, endpoints.diagnosis]
            for base in services {
                #expect(try await HTTP.get(base + "/readyz").status == 200, "\(base) not ready")
            }
            #expect(endpoints.database.hasPrefix("postgres://caretide@127.0.0.1:"))
            // Diagnosis ranks from the release imported in the background (it answers "no ontology" until then).
            let token =
                try await Subprocess.run(
                    Paths.executable("caretide").path, ["token", "--role", "consultant", "--subject", "dr-dev", "--state-dir", stateDirectory.path],
                    environment: environment
                ).output.split(separator: "\n").last.map(String.init) ?? ""
            try await eventually("diagnosis ranks with the imported release", timeout: .seconds(300)) {
                let ranked = try await HTTP.post(
                    endpoints.diagnosis + "/v1/rankings", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"]}"#, as: .token(token))
                return ranked.status == 200 && ranked.text.contains("OMIM:154700")
            }
            // `caretide-bench pipeline` against it, briefly: every kind of the mix sent with the tokens the stack trusts,
            // followed to scores and alerts by trace id, and reconciled (exit status 0 only when nothing is missing or
            // came twice). Diagnosis is left out of the mix.
            let bench = try await Subprocess.run(
                Paths.executable("caretide-bench").path,
                [
                    "pipeline", "--state-dir", stateDirectory.path, "--rate", "150", "--seconds", "5", "--patients", "30", "--connections", "4",
                    "--subscribers", "3", "--settle", "60",
                ],
                environment: environment)
            #expect(bench.status == 0, "\(bench.output)")
            #expect(bench.output.contains("RECONCILED: nothing lost, nothing twice"), "\(bench.output)")
            for kind in ["reading", "urgent reading", "sync", "npi", "risk", "report", "environment"] {
                #expect(
                    bench.output.contains("\n  \(kind.padding(toLength: 15, withPad: " ", startingAt: 0))"), "\(kind) reconciled: \(bench.output)")
            }
            let postmasterPID = try String(contentsOf: stateDirectory.appendingPathComponent("postgres/postmaster.pid"), encoding: .utf8)
                .split(separator: "\n").first.flatMap { Int32($0) }

            let postmasterStarted = postmasterPID.flatMap { Self.status($0)?.started }
            #expect(postmasterStarted != nil, "the postmaster of postmaster.pid runs before the shutdown")
            dev.signal(SIGTERM)
            #expect(await dev.waitForExit(timeout: .seconds(60)))
            #expect(dev.exitCode == 0)
            for base in services {
                #expect((try? await HTTP.get(base + "/healthz")) == nil, "\(base) still answers after shutdown")
            }
            if let postmasterPID {
                #expect(!Self.isRunning(postmasterPID, started: postmasterStarted), "PostgreSQL still runs after shutdown")
            }
        } catch {
            await dev.stop(grace: .seconds(60))
            throw error
        }
        // Still running if it did not exit on the SIGTERM above (an expectation failed).
        await dev.stop(grace: .seconds(60))
    }

    /// The pid of `parent`'s child whose command name is `name`, if one runs (`/proc/<pid>/stat`: name, then state, then
    /// the parent's pid).
    static func child(of parent: Int32, named name: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            if stat[stat.index(after: open)..<close] == name, fields.count > 1, Int32(fields[1]) == parent, fields[0] != "Z" { return pid }
        }
        return nil
    }

    @Test("a service that dies is named with its signal and last lines; with --restart it serves again, and without, the stack stops")
    func deadServiceIsNamed() async throws {
        let stateDirectory = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        let environment = Self.environment(logLevel: "info")
        for restart in [true, false] {
            let log = stateDirectory.appendingPathComponent("dev-\(restart).log")
            let dev = ServiceProcess(
                name: "caretide", executable: Paths.executable("caretide"),
                arguments: ["dev", "--state-dir", stateDirectory.path] + (restart ? ["--restart"] : []), environment: environment, logPath: log.path)
            try dev.start()
            do {
                let file = stateDirectory.appendingPathComponent("endpoints.json")
                try await eventually("endpoints.json", timeout: .seconds(180)) {
                    FileManager.default.fileExists(atPath: file.path) || !dev.isRunning
                }
                let endpoints = try JSONDecoder().decode(Endpoints.self, from: Data(contentsOf: file))
                let devPID = try #require(dev.pid)
                let scoring = try #require(Self.child(of: devPID, named: "scoring-service"))
                // As the kernel ends a process out of memory. (A SIGSEGV would be caught by Swift's backtracer first,
                // which takes its time symbolicating a debug build before the process ends.)
                kill(scoring, SIGKILL)
                let said = "scoring-service was killed by SIGKILL (signal 9)"
                if restart {
                    try await eventually("scoring-service started again and ready") {
                        guard let again = Self.child(of: devPID, named: "scoring-service"), again != scoring else { return false }
                        return (try? await HTTP.get(endpoints.scoring + "/readyz").status) == 200
                    }
                    #expect(dev.isRunning)
                    #expect(dev.lastLogLines(400).contains { $0.contains(said) && $0.contains("starting it again") }, "\(dev.lastLogLines(40))")
                    dev.signal(SIGTERM)
                    #expect(await dev.waitForExit(timeout: .seconds(60)))
                    #expect(dev.exitCode == 0)
                } else {
                    #expect(await dev.waitForExit(timeout: .seconds(60)))
                    #expect(dev.exitCode == 1)
                    #expect(dev.lastLogLines(400).contains { $0.contains(said) && $0.contains("the stack was shut down") }, "\(dev.lastLogLines(40))")
                    #expect((try? await HTTP.get(endpoints.ingest + "/healthz")) == nil, "ingest still answers after the stack stopped")
                }
            } catch {
                await dev.stop(grace: .seconds(60))
                throw error
            }
            await dev.stop(grace: .seconds(60))
        }
    }
}
