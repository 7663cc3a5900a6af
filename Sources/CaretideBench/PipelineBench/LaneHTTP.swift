import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The load's HTTP client: each lane keeps one keep-alive HTTP/1.1 connection per service and sends one request at a
/// time on it, as wrk does. The bench shares the machine's cores with the stack it measures, so its own cost per
/// request is taken from the figure it reports; a general client's pool, per-request state machines and tracing took
/// about half of the bench's CPU flat out. Setting up the run still goes through AsyncHTTPClient.
struct LaneHTTP {
    struct Response {
        let status: Int
        let body: ByteBuffer
    }

    /// Where a service listens, read once from its base URL (`http://host:port`).
    struct Endpoint: Hashable, Sendable {
        let host: String
        let port: Int

        init?(baseURL: String) {
            guard let url = URL(string: baseURL), url.scheme == "http", let host = url.host else { return nil }
            self.host = host
            self.port = url.port ?? 80
        }

        var hostHeader: String { "\(host):\(port)" }
    }

    private var channels: [Endpoint: any Channel] = [:]

    /// Sends one request and waits for its whole answer, connecting (again) when the lane has no open connection to
    /// `endpoint`. Fails when the connection fails or no answer comes within `timeout`; the next request reconnects.
    mutating func send(
        _ method: String, to endpoint: Endpoint, path: String, headers: [(String, String)], body: ByteBuffer, timeout: TimeAmount = .seconds(60)
    ) async throws -> Response {
        let channel: any Channel
        if let open = channels[endpoint], open.isActive {
            channel = open
        } else {
            channel = try await Self.connect(endpoint)
            channels[endpoint] = channel
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
        head.headers.reserveCapacity(headers.count + 2)
        head.headers.add(name: "Host", value: endpoint.hostHeader)
        head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let answer = channel.eventLoop.makePromise(of: Response.self)
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            answer.fail(ChannelError.connectTimeout(timeout))
            channel.close(promise: nil)
        }
        channel.writeAndFlush(ResponseCollector.Outgoing(head: head, body: body, answer: answer), promise: nil)
        defer { deadline.cancel() }
        do {
            return try await answer.futureResult.get()
        } catch {
            channels[endpoint] = nil
            try? await channel.close()
            throw error
        }
    }

    /// Closes every connection of the lane.
    mutating func close() async {
        for channel in channels.values { try? await channel.close() }
        channels = [:]
    }

    private static func connect(_ endpoint: Endpoint) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector())
                }
            }
            .connect(host: endpoint.host, port: endpoint.port).get()
    }
}

/// Writes a request and completes its promise with the whole answer; fails it if the connection ends first. One
/// request is in flight per connection.
private final class ResponseCollector: ChannelDuplexHandler {
    struct Outgoing: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer
        let answer: EventLoopPromise<LaneHTTP.Response>
    }

    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Outgoing
    typealias OutboundOut = HTTPClientRequestPart

    private var answer: EventLoopPromise<LaneHTTP.Response>?
    private var status = 0
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let outgoing = unwrapOutboundIn(data)
        guard answer == nil else {
            outgoing.answer.fail(ChannelError.inappropriateOperationForState)
            return
        }
        answer = outgoing.answer
        context.write(wrapOutboundOut(.head(outgoing.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(outgoing.body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            let finished = answer
            answer = nil
            finished?.succeed(LaneHTTP.Response(status: status, body: body))
            body = ByteBuffer()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    private func fail(_ error: any Error) {
        let pending = answer
        answer = nil
        pending?.fail(error)
    }
}
