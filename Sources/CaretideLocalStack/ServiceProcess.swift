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
    private let state = Mutex<(pid: pid_t?, exitCode: Int32?)>((nil, nil))

    /// - Parameter outputPath: a file for the process's standard output and error, in place of this process's.
    public init(name: String, executable: URL, arguments: [String] = [], environment: [String: String], outputPath: String? = nil) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.outputPath = outputPath
    }

    public func start() throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Subprocess.Failure(command: executable.path, status: 127, output: "not found; build it first (swift build)")
        }
        let pid = try Subprocess.spawn(executable.path, arguments, environment: environment, outputPath: outputPath)
        state.withLock { $0 = (pid, nil) }
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
