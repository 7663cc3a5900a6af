import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP port on 127.0.0.1 that nothing listens on right now, released before returning, for a process started next
/// to listen on.
///
/// It is chosen below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`), at random: a port the
/// kernel hands out itself (port 0) is taken again at once by the next outgoing connection of any process, and with
/// a dozen stacks starting beside one another that took a service's port between this choice and its bind ("address
/// already in use"). Below the range only another caller of this can collide, at one chance in thousands. Where the range leaves no room below it, the kernel's choice is taken.
public enum FreePort {
    public static func find() throws -> Int {
        let lowest = 10_000
        let ephemeralStart = ephemeralRangeStart() ?? 32_768
        if ephemeralStart - lowest > 1_000 {
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<64 {
                let candidate = Int.random(in: lowest..<ephemeralStart, using: &generator)
                if (try? bind(port: candidate)) != nil { return candidate }
            }
        }
        return try bind(port: 0)
    }

    /// The first port of the ephemeral range, if the kernel says.
    static func ephemeralRangeStart() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
    }

    /// Binds `port` (0: the kernel's choice) on 127.0.0.1 and releases it; the port bound.
    static func bind(port: Int) throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.EINVAL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
