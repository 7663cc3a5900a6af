public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running child process (a service started by `caretide dev`, or by a test), spawned with posix_spawn and
/// reaped with waitpid. Its output goes to this process's standard output and error, or to `outputPath`.
public final class ServiceProcess: Sendable {
    public let name: String
    let executable: URL
    let environment: [String: String]
    let arguments: [String]
    let outputPath: String?
    let logPath: String?
    private let state = Mutex<(pid: pid_t?, exitCode: Int32?)>((nil, nil))

    /// - Parameters:
    ///   - outputPath: a file for the process's standard output and error, in place of this process's.
    ///   - logPath: a file that keeps a copy of the output as it goes to this process's standard output (appended to
    ///     across restarts): what `caretide dev` shows of a service that died.
    public init(
        name: String, executable: URL, arguments: [String] = [], environment: [String: String], outputPath: String? = nil, logPath: String? = nil
    ) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.outputPath = outputPath
        self.logPath = logPath
    }

    public func start() throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Subprocess.Failure(command: executable.path, status: 127, output: "not found; build it first (swift build)")
        }
        guard let logPath, outputPath == nil else {
            let pid = try Subprocess.spawn(executable.path, arguments, environment: environment, outputPath: outputPath)
            state.withLock { $0 = (pid, nil) }
            return
        }
        // The child writes into a pipe; a thread of ours copies each chunk to our standard output and to the log.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(executable.path, arguments, environment: environment, outputPath: nil, standardOutput: ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            if log >= 0 { close(log) }
            throw error
        }
        close(ends[1])
        state.withLock { $0 = (pid, nil) }
        let reading = ends[0]
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.withUnsafeBytes { bytes in
                    _ = write(1, bytes.baseAddress, count)
                    if log >= 0 { _ = write(log, bytes.baseAddress, count) }
                }
            }
            close(reading)
            if log >= 0 { close(log) }
        }
    }

    /// How the process ended, as an operator reads it: "was killed by SIGSEGV (signal 11)", "exited with status 1";
    /// nil while it runs.
    public var exitDescription: String? {
        guard let code = exitCode else { return nil }
        guard code > 128 else { return "exited with status \(code)" }
        let number = code - 128
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM",
        ]
        return "was killed by \(names[number] ?? "a signal") (signal \(number))"
    }

    /// The last `count` lines of the log the process's output was copied to (see `logPath`), if any.
    public func lastLogLines(_ count: Int = 20) -> [String] {
        guard let logPath, let handle = FileHandle(forReadingAtPath: logPath) else { return [] }
        defer { try? handle.close() }
        // The tail alone: a service's log grows for as long as the stack runs.
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 65_536 ? size - 65_536 : 0)
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        return Array(text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).map(String.init))
    }

    public var pid: pid_t? { state.withLock { $0.pid } }

    /// Whether the process still runs; reaps it (once) when it has exited.
    public var isRunning: Bool { exitCode == nil && pid != nil }

    /// The exit code once the process has ended (128 + signal when a signal ended it), else nil.
    public var exitCode: Int32? {
        state.withLock { state in
            if let code = state.exitCode { return code }
            guard let pid = state.pid else { return nil }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            state.exitCode = Subprocess.exitCode(status)
            return state.exitCode
        }
    }

    public func signal(_ number: Int32) {
        if isRunning, let pid { kill(pid, number) }
    }

    /// Waits until the process exits or `timeout` passes; returns whether it exited. A cancelled task waits as well:
    /// a stop asked for by a test that was cancelled still gives the process its grace period.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline {
            await Self.pause()
        }
        return !isRunning
    }

    /// 50 ms that cancellation does not cut short: `Task.sleep` throws at once in a cancelled task, and the wait above
    /// would then spin until its deadline.
    private static func pause() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { continuation.resume() }
        }
    }

    /// SIGTERM, wait up to `grace`, then SIGKILL: the service gets the chance to finish in-flight work and commit.
    public func stop(grace: Duration = .seconds(20)) async {
        guard isRunning else { return }
        signal(SIGTERM)
        if await waitForExit(timeout: grace) { return }
        killHard()
    }

    /// Ends the process at once, as a crash would (recovery tests).
    public func killHard() {
        signal(SIGKILL)
        while isRunning { usleep(10_000) }
    }

    /// The directory holding the built executables: the one this program runs from.
    public static var executableDirectory: URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
}
