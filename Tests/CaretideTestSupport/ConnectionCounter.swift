import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that accepts connections and closes each at once: a peer that is down but reachable (the database,
/// the identity provider). A test waits for a service's next attempt here, a positive signal that it is still
/// retrying, instead of sleeping and then asserting that nothing went wrong.
public final class ConnectionCounter: Sendable {
    public let port: Int
    private let socket: Int32
    private let accepted = Mutex(0)

    /// Listens on `127.0.0.1:port` (a port another listener just left may be taken again at once).
    public init(port: Int) throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw SocketError(call: "bind", code: code)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.port = port
        self.socket = descriptor
    }

    deinit { Glibc.close(socket) }

    /// Connections accepted (and closed) so far.
    public var count: Int {
        acceptPending()
        return accepted.withLock { $0 }
    }

    /// Waits until at least `count` connections have been made, or `timeout` passes; true when they were.
    public func waitForConnections(_ count: Int, timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if self.count >= count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return self.count >= count
    }

    private func acceptPending() {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { return }
            Glibc.close(connection)
            accepted.withLock { $0 += 1 }
        }
    }

    public struct SocketError: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }
}
