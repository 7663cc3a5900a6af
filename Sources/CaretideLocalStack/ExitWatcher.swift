import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command once this process has ended, however it ended: an `exit`, a crash, or a SIGKILL (a test runner
/// stopping a stuck run), the last two of which run no `atexit` handler. A shell waits for end-of-file on a pipe whose
/// writing end only this process holds; the kernel closes that end when the process goes, and the shell then runs the
/// command. The shell leads a process group of its own, so a signal sent to this process's group (the runner's, or
/// Ctrl-C) does not end it before it has acted.
///
/// For a server that detaches from this process (PostgreSQL, which pg_ctl starts in a session of its own): the command
/// must be safe to run late, e.g. `pg_ctl -D <directory> stop`, which finds the server through its data directory and
/// does nothing when none runs. A bare pid would not do: it may belong to another process by then.
public final class ExitWatcher: Sendable {
    private let pid: pid_t
    private let writingEnd: Int32
    private let disarmed = Atomic<Bool>(false)

    private init(pid: pid_t, writingEnd: Int32) {
        self.pid = pid
        self.writingEnd = writingEnd
    }

    /// Starts the watcher; `executable` runs with `arguments` once this process has ended, unless `disarm()` came first.
    public static func arm(_ executable: String, _ arguments: [String]) throws -> ExitWatcher {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        // Close-on-exec at once: another child that inherited the writing end would hold the watcher back until it ended.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The shell gets the reading end as its standard input; this process keeps only the writing end.
        defer { close(ends[0]) }
        let script = #"read -r line; exec "$@""#
        do {
            let pid = try Subprocess.spawn(
                "/bin/sh", ["-c", script, "caretide-exit-watcher", executable] + arguments, environment: ProcessInfo.processInfo.environment,
                outputPath: "/dev/null", standardInput: ends[0], ownProcessGroup: true)
            return ExitWatcher(pid: pid, writingEnd: ends[1])
        } catch {
            close(ends[1])
            throw error
        }
    }

    /// Ends the watcher without running its command (the server was stopped the ordinary way). Only the first call acts.
    public func disarm() {
        guard !disarmed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        close(writingEnd)
    }
}
