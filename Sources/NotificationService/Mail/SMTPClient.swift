import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Hands one message to the operator's SMTP relay (RFC 5321): EHLO, STARTTLS (RFC 3207) or TLS from the first byte,
/// AUTH PLAIN (RFC 4954, RFC 4616) when credentials are configured, then MAIL, RCPT, DATA and QUIT. Every wait is
/// bounded by `timeout`; the relay's certificate is verified against the system's roots or the operator's CA file,
/// and a relay that does not offer STARTTLS when it is required is refused before any credential or address is sent.
struct SMTPClient: Sendable {
    let relay: SMTPRelay
    var timeout: Duration = .seconds(60)

    /// Sends `message`; throws an `MailFailure` that says whether trying again may help.
    func send(_ message: MailMessage) async throws {
        let tls = try relay.tlsContext()
        try await withTimeout(timeout) {
            let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(10))
                    .connect(host: relay.host, port: relay.port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            if relay.security == .tls {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOSSLClientHandler(context: tls, serverHostname: relay.serverHostname))
                            }
                            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ReplyLineDecoder()))
                            return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
            } catch {
                throw MailFailure.unreachable("could not connect to the relay")
            }
            let underlying = channel.channel
            try await channel.executeThenClose { inbound, outbound in
                var session = SMTPSession(lines: inbound.makeAsyncIterator(), outbound: outbound)
                try await session.reply(expecting: [220], stage: "greeting")
                var features = try await session.command("EHLO \(relay.heloName)", expecting: [250], stage: "EHLO")
                if relay.security == .startTLS {
                    guard features.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                        throw MailFailure.refused("the relay does not offer STARTTLS, which SMTP_SECURITY=starttls requires")
                    }
                    try await session.command("STARTTLS", expecting: [220], stage: "STARTTLS")
                    let hostname = relay.serverHostname
                    try await underlying.eventLoop.submit {
                        try underlying.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: hostname), position: .first)
                    }.get()
                    features = try await session.command("EHLO \(relay.heloName)", expecting: [250], stage: "EHLO after STARTTLS")
                }
                if let credentials = relay.credentials {
                    let plain = Data("\0\(credentials.username)\0\(credentials.password)".utf8).base64EncodedString()
                    try await session.command("AUTH PLAIN \(plain)", expecting: [235], stage: "AUTH")
                }
                try await session.command("MAIL FROM:<\(message.from)>", expecting: [250], stage: "MAIL FROM")
                try await session.command("RCPT TO:<\(message.to)>", expecting: [250, 251], stage: "RCPT TO")
                try await session.command("DATA", expecting: [354], stage: "DATA")
                try await session.command(message.transmitted, expecting: [250], stage: "end of data")
                // The message is accepted; a relay that closes without answering QUIT changes nothing.
                _ = try? await session.command("QUIT", expecting: [221], stage: "QUIT")
            }
        }
    }
}

/// Where and how mail leaves: the operator's relay (`SMTP_*`).
struct SMTPRelay: Sendable {
    enum Security: String, Sendable, CaseIterable {
        /// Plain TCP upgraded with STARTTLS before anything else is sent (port 587): the default.
        case startTLS = "starttls"
        /// TLS from the first byte (port 465).
        case tls
        /// No encryption: only for a relay on the same host or pod, and never with credentials.
        case none
    }

    struct Credentials: Sendable {
        let username: String
        let password: String
    }

    let host: String
    let port: Int
    let security: Security
    let credentials: Credentials?
    /// PEM certificates trusted in place of the system's roots (a relay with a private CA).
    let trustedCertificates: String?
    /// The name this client greets with.
    var heloName = "caretide.localhost"

    /// A host name is checked against the certificate and sent as SNI; an address literal is checked against the
    /// certificate's IP addresses (SNI never carries one, RFC 6066 §3).
    var serverHostname: String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    func tlsContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let trustedCertificates {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustedCertificates))
        }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Why a message did not leave, and whether trying again later may help.
enum MailFailure: Error, Equatable, CustomStringConvertible {
    /// The relay answered `code` at `stage`: 4xx is "not now", 5xx "never" (RFC 5321 §4.2.1).
    case replied(code: Int, stage: String)
    /// No usable answer: connection refused or lost, TLS failed, or the time ran out.
    case unreachable(String)
    /// The relay cannot be used as configured (no STARTTLS offered); the operator must act.
    case refused(String)

    var isTransient: Bool {
        switch self {
        case .replied(let code, _): (400..<500).contains(code)
        case .unreachable: true
        case .refused: false
        }
    }

    /// Kept as the delivery's last error: codes and stages, never an address or a word of the message.
    var description: String {
        switch self {
        case .replied(let code, let stage): "the relay answered \(code) to \(stage)"
        case .unreachable(let reason): reason
        case .refused(let reason): reason
        }
    }
}

/// One SMTP conversation: a command, then its reply, which may span lines (`250-…` continues, `250 …` ends).
private struct SMTPSession {
    var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Sends `line` (CRLF added) and reads the reply; throws unless its code is one of `expecting`. Returns the
    /// reply's lines without their codes (EHLO's are the relay's extensions).
    @discardableResult
    mutating func command(_ line: String, expecting: Set<Int>, stage: String) async throws -> [String] {
        do {
            try await outbound.write(ByteBuffer(string: line + "\r\n"))
        } catch {
            throw MailFailure.unreachable("the connection closed at \(stage)")
        }
        return try await reply(expecting: expecting, stage: stage)
    }

    @discardableResult
    mutating func reply(expecting: Set<Int>, stage: String) async throws -> [String] {
        var texts: [String] = []
        while true {
            let next: ByteBuffer?
            do {
                next = try await lines.next()
            } catch {
                throw MailFailure.unreachable("the connection failed at \(stage)")
            }
            guard let buffer = next else { throw MailFailure.unreachable("the relay closed the connection at \(stage)") }
            let line = String(buffer: buffer).trimmingCharacters(in: .newlines)
            guard line.utf8.count >= 3, let code = Int(line.prefix(3)) else {
                throw MailFailure.unreachable("the relay's answer at \(stage) is not SMTP")
            }
            texts.append(String(line.dropFirst(4)))
            if line.utf8.count > 3, line.dropFirst(3).first == "-" { continue }
            guard expecting.contains(code) else { throw MailFailure.replied(code: code, stage: stage) }
            return texts
        }
    }
}

/// Runs `body`, or throws `MailFailure.unreachable` once `limit` has passed (the body is cancelled).
private func withTimeout(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw MailFailure.unreachable("the relay did not finish within \(limit)")
        }
        defer { group.cancelAll() }
        try await group.next()
    }
}

/// Splits what the relay sends into lines (CRLF or LF), refusing a line longer than RFC 5321's limit for replies
/// (512 octets, §4.5.3.1.5) with room to spare, so a hostile peer cannot make the client buffer without end.
private struct ReplyLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    static let maximumLength = 4096

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLength { throw LineTooLong() }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        guard let line = buffer.readSlice(length: length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}
