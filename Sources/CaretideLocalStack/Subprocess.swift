import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion without blocking Swift's cooperative threads (the wait happens in the termination
/// handler), and returns its exit status and combined output.
public enum Subprocess {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let output: String
        public var description: String { "\(command) exited with status \(status): \(output.suffix(2000))" }
    }

    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        // Output goes to a file, not a pipe: a daemon started by the program (pg_ctl start) inherits the descriptor,
        // and a pipe would then never reach end-of-file. For the same reason the exit is awaited with waitpid
        // rather than Foundation's Process, whose termination monitoring can be held up by such a daemon.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let pid = try spawn(executable, arguments, environment: environment, outputPath: outputPath)
        let status = await waitForExit(pid)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: status, output: text)
    }

    /// Starts a program with posix_spawn. Standard input is `standardInput` (a descriptor), else /dev/null; output goes
    /// to `outputPath`, else to the descriptor `standardOutput` (both streams), else is inherited. Descriptors above 2 are closed in the child, so no daemon it starts can
    /// hold ours open. With `ownProcessGroup`, the child leads a process group of its own, out of reach of a signal sent
    /// to this process's group.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], outputPath: String?, standardInput: Int32? = nil,
        standardOutput: Int32? = nil, ownProcessGroup: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        }
        if let outputPath {
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else if let standardOutput {
            posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
            posix_spawn_file_actions_adddup2(&actions, standardOutput, 2)
        }
        markDescriptorsCloseOnExec()
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for variable in envp { free(variable) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .ENOENT) }
        return pid
    }

    /// Sets close-on-exec on every open descriptor above 2, so a child (and any daemon it starts) inherits none of
    /// ours. glibc's posix_spawn_file_actions_addclosefrom_np would do this in the child but is not visible to Swift.
    private static func markDescriptorsCloseOnExec() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for entry in entries {
            guard let descriptor = Int32(entry), descriptor > 2 else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The exit status as a shell reports it: the code, or 128 + the signal number.
    static func exitCode(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS, spelled out because the C macros are not imported.
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs a program and blocks the calling thread until it exits; for `atexit` handlers, which cannot await.
    public static func runBlocking(_ executable: String, _ arguments: [String]) -> Int32 {
        let outputPath = "/dev/null"
        guard let pid = try? spawn(executable, arguments, environment: ProcessInfo.processInfo.environment, outputPath: outputPath) else {
            return -1
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// Waits for the child on a thread outside Swift's cooperative pool.
    private static func waitForExit(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: exitCode(status))
            }
        }
    }

    /// Runs the program and throws unless it exits with status 0.
    @discardableResult
    public static func check(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> String {
        let result = try await run(executable, arguments, environment: environment)
        guard result.status == 0 else {
            throw Failure(command: ([executable] + arguments).joined(separator: " "), status: result.status, output: result.output)
        }
        return result.output
    }
}
