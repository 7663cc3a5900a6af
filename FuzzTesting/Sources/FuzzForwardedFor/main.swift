import CaretideRuntime

/// Bytes as what a request behind a proxy brings: the first line a `TRUSTED_PROXIES` value (an invalid one is replaced
/// by a fixed list, so the walk is always exercised), the second the connection's peer, every further line one
/// `X-Forwarded-For` header line. The client's address is found as `ClientAddressMiddleware` finds it; a peer that is
/// not a trusted proxy must come back unchanged whatever the header says.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let proxies = TrustedProxies(parsing: lines.first ?? "") ?? TrustedProxies(parsing: "10.0.0.0/8, 192.168.0.0/16, fd00::/8, 127.0.0.1")!
    let peer = lines.count > 1 ? lines[1] : nil
    let client = proxies.clientAddress(peer: peer, forwardedFor: Array(lines.dropFirst(2)))
    if let peer, !proxies.trusts(peer) { precondition(client == peer, "an untrusted peer is the client") }
    if peer == nil { precondition(client == nil, "no peer, no client") }
    return 0
}
