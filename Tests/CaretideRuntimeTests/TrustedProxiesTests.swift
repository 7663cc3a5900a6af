import CaretideRuntime
import Testing

/// The client's address behind proxies: believed from `X-Forwarded-For` only as far as trusted proxies wrote it.
@Suite struct TrustedProxiesTests {
    let proxies = TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.7, fd00::/8")!

    @Test func parsesAddressesAndNetworksAndRefusesTheRest() {
        #expect(proxies.trusts("10.255.0.3") && proxies.trusts("192.168.1.7") && proxies.trusts("fd12::1"))
        #expect(!proxies.trusts("11.0.0.1") && !proxies.trusts("192.168.1.8") && !proxies.trusts("fe80::1") && !proxies.trusts("proxy"))
        // An IPv4 peer as a dual-stack socket reports it is the same address.
        #expect(proxies.trusts("::ffff:10.1.2.3"))
        #expect(TrustedProxies(parsing: "0.0.0.0/0")?.trusts("203.0.113.9") == true)
        for bad in ["", " , ", "10.0.0.0/33", "fd00::/129", "10.0.0.0/-1", "10.0.0.0/", "10.0.0", "example.org", "10.0.0.1/8/8"] {
            #expect(TrustedProxies(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func aPeerThatIsNoTrustedProxyIsTheClientWhateverTheHeaderSays() {
        #expect(proxies.clientAddress(peer: "203.0.113.9", forwardedFor: ["198.51.100.1"]) == "203.0.113.9")
        #expect(TrustedProxies.none.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.1"]) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: nil, forwardedFor: ["198.51.100.1"]) == nil)
    }

    @Test func theClientIsTheRightmostAddressNoTrustedProxyWrote() {
        // A forged first entry is passed over: the ingress appended the address it was reached from.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.2.3.4, 203.0.113.9"]) == "203.0.113.9")
        // Two trusted hops, on two header lines.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, 192.168.1.7", "10.9.9.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["2001:db8::7"]) == "2001:db8::7")
        // Spelt one way whatever the header wrote.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["2001:DB8:0:0::7"]) == "2001:db8::7")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["::ffff:203.0.113.9"]) == "203.0.113.9")
    }

    @Test func withoutAUsableHeaderTheNearestTrustedHopIsTheClient() {
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.0.0.1"]) == "10.0.0.1")
        // Not an address: the walk stops where the header stops being believable.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, unknown"]) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, unknown, 10.0.0.5"]) == "10.0.0.5")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: [String(repeating: "1", count: 100)]) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9\u{0}junk"]) == "10.0.0.2")
        #expect(!proxies.trusts("10.0.0.1\u{0}"))
    }
}
