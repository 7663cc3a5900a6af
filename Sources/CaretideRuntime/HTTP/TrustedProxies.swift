#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies in front of a service (a Kubernetes ingress, a load balancer) whose `X-Forwarded-For` it believes,
/// from `TRUSTED_PROXIES`: addresses and networks, `10.0.0.0/8, 192.168.1.7, fd00::/8`.
///
/// Behind a proxy, every connection comes from the proxy, so the address an outside viewer's failed codes are counted
/// against, and the one the patient's list of openings shows, would be the proxy's. A proxy appends the address it
/// was reached from to `X-Forwarded-For`; anyone can write the rest of that header. So the client is found from the
/// right, as nginx's `real_ip_recursive` does: past the connection's peer and every hop that is itself a trusted
/// proxy, the first address is the client's. A peer that is not a trusted proxy is the client, whatever the header
/// says; and an entry that is not an address stops the walk at the last trusted hop.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        let address: [UInt8]
        let prefixLength: Int

        func contains(_ other: [UInt8]) -> Bool {
            guard other.count == address.count else { return false }
            var bits = prefixLength
            for (mine, theirs) in zip(address, other) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard mine & mask == theirs & mask else { return false }
                bits -= 8
            }
            return true
        }
    }

    let networks: [Network]

    /// No proxy is trusted: the connection's peer is the client.
    public static let none = TrustedProxies(networks: [])

    public var isEmpty: Bool { networks.isEmpty }

    init(networks: [Network]) { self.networks = networks }

    /// Parses a comma-separated list of addresses and networks (CIDR); nil when an entry is neither.
    public init?(parsing text: String) {
        var networks: [Network] = []
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingWhitespace.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = Self.bytes(String(parts[0])) else { return nil }
            let bits = address.count * 8
            var prefixLength = bits
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
                prefixLength = length
            }
            networks.append(Network(address: address, prefixLength: prefixLength))
        }
        guard !networks.isEmpty else { return nil }
        self.networks = networks
    }

    public func trusts(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address: `peer` itself unless it is a trusted proxy, else the rightmost entry of `forwardedFor`
    /// (the header's lines in order, each a comma-separated list) that is not a trusted proxy.
    public func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, trusts(peer) else { return peer }
        var client = peer
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.trimmingWhitespace) }
        for hop in hops.reversed() {
            guard let bytes = Self.bytes(hop) else { break }
            client = Self.text(bytes)
            if !networks.contains(where: { $0.contains(bytes) }) { break }
        }
        return client
    }

    /// An IPv4 or IPv6 address's bytes; an IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket
    /// reports an IPv4 peer) as its four IPv4 bytes, so one rule matches both spellings.
    static func bytes(_ text: String) -> [UInt8]? {
        // A NUL would end the C string early: "1.2.3.4\0…" must not read as 1.2.3.4.
        guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    /// An address's usual text (`inet_ntop`), so what is stored is spelt one way whatever the header wrote.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var storage = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        return storage.withUnsafeMutableBytes { raw in
            guard inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
