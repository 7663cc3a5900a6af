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

    @Test("caretide dev reaches endpoints.json, every /readyz answers 200, the pipeline bench reconciles against it, SIGTERM leaves nothing running")
    func devStackStartsAndStops() async throws {
        let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-dev-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stateDirectory.path)
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        environment["KAFKA_BROKERS"] = nil
        environment["LOG_LEVEL"] = "warning"
        let dev = ServiceProcess(
            name: "caretide", executable: Paths.executable("caretide"), arguments: ["dev", "--state-dir", stateDirectory.path],
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
            // `caretide-bench pipeline` against it, briefly: every kind of the mix sent with the tokens the stack trusts,
            // followed to scores and alerts by trace id, and reconciled (exit status 0 only when nothing is missing or
            // came twice). Diagnosis is left out: no ontology is imported here.
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
}
