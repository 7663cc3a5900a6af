import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that accepts connections and closes each at once, for as long as the counter lives: a peer that is
/// down but reachable (the database, the identity provider), which fails every attempt at once rather than leaving it
/// to time out. A test waits for a service's next attempts here, a positive signal that it is still retrying, instead
/// of sleeping and then asserting that nothing went wrong.
public final class ConnectionCounter: Sendable {
    public let port: Int
    private let listener: Listener

    /// Listens on `127.0.0.1:port` (a port another listener just left may be taken again at once).
    public init(port: Int) throws {
        // Close-on-exec: a process a test spawns meanwhile must not inherit the listening socket.
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SocketError.closing(descriptor, call: "bind") }
        guard listen(descriptor, 16) == 0 else { throw SocketError.closing(descriptor, call: "listen") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.port = port
        listener = Listener(socket: descriptor)
        let listener = self.listener
        Thread.detachNewThread { listener.run() }
    }

    /// Stops accepting; the listening thread closes the socket within its next wait (0.1 s).
    deinit { listener.stop() }

    /// Connections accepted (and closed) so far.
    public var count: Int { listener.state.withLock { $0.accepted } }

    /// Waits until at least `count` connections have been made, or `timeout` passes; true when they were.
    public func waitForConnections(_ count: Int, timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while self.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return self.count >= count
    }

    /// The socket and what its thread has done: accepts and closes every connection until stopped, then closes the
    /// socket itself, so nothing waits on the thread.
    private final class Listener: Sendable {
        struct State {
            var accepted = 0
            var stopped = false
        }
        let socket: Int32
        let state = Mutex(State())

        init(socket: Int32) { self.socket = socket }

        func stop() { state.withLock { $0.stopped = true } }

        func run() {
            defer { Glibc.close(socket) }
            while !state.withLock({ $0.stopped }) {
                var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&waiting, 1, 100) > 0 else { continue }
                while case let connection = accept(socket, nil, nil), connection >= 0 {
                    Glibc.close(connection)
                    state.withLock { $0.accepted += 1 }
                }
            }
        }
    }

    public struct SocketError: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }

        /// The error of `call`, after closing the socket it failed on.
        static func closing(_ descriptor: Int32, call: String) -> SocketError {
            let code = errno
            Glibc.close(descriptor)
            return SocketError(call: call, code: code)
        }
    }
}
