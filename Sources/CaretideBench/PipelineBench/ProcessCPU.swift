import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time of every process on this machine, grouped as `scripts/bench/process-cpu` groups them (each service,
/// `caretide dev` with its embedded broker, PostgreSQL's backends together): two snapshots around the load say what
/// kept the cores busy, so what limits a figure is measured rather than guessed. Reads /proc (Linux); elsewhere, or
/// for a stack on other machines, it sees only what runs here.
struct ProcessCPU {
    /// Clock ticks (utime + stime) by process group.
    let ticks: [String: Int]

    static func snapshot() -> ProcessCPU {
        var ticks: [String: Int] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let arguments = command.split(separator: "\0").map(String.init)
            guard let first = arguments.first else { continue }  // a kernel thread
            // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15 (proc(5)).
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks[group(first, arguments), default: 0] += user + system
        }
        return ProcessCPU(ticks: ticks)
    }

    private static func group(_ first: String, _ arguments: [String]) -> String {
        let name = String(first.split(separator: "/").last ?? Substring(first))
        if name == "postgres" || first.hasPrefix("postgres:") { return arguments.contains("-D") ? "postgres (server)" : "postgres (backends)" }
        if name == "caretide" { return "caretide " + arguments.dropFirst().prefix(2).joined(separator: " ") }
        return name
    }

    /// Cores each group kept busy from `before` to `self`, `seconds` apart, busiest first.
    func cores(since before: ProcessCPU, seconds: Double) -> [(name: String, cores: Double)] {
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks.map { name, value in (name, Double(value - (before.ticks[name] ?? 0)) / perSecond / seconds) }
            .filter { $0.cores >= 0.005 }
            .sorted { $0.cores > $1.cores }
    }
}
