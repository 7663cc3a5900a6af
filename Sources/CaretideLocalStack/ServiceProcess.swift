import Foundation

/// One service started as a child process by `caretide dev` (or a test), with its own environment.
public final class ServiceProcess: @unchecked Sendable {
    // `process` is only touched from the owning task; Foundation's Process is not Sendable.
    public let name: String
    let process: Process

    public init(name: String, executable: URL, environment: [String: String]) {
        self.name = name
        process = Process()
        process.executableURL = executable
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
    }

    public func start() throws { try process.run() }

    public var isRunning: Bool { process.isRunning }
    public var pid: Int32 { process.processIdentifier }
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// SIGTERM, wait up to `grace`, then SIGKILL: the service gets the chance to finish in-flight work and commit.
    public func stop(grace: Duration = .seconds(20)) async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Ends the process at once, as a crash would (tests of recovery).
    public func killHard() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The directory holding the built executables: the one this program runs from.
    public static var executableDirectory: URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
}
