import CaretideIdentity
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// `Idempotency-Key` on POST (the IETF httpapi draft of that name): a client that did not hear the answer sends the
/// same request with the same key again, and gets the first answer back, marked `Idempotent-Replayed: true`, with
/// nothing stored twice. Keys belong to the caller (role and subject) and are kept for a day.
///
/// - The same key with another request (method, path, query or body differ) is a 422: the client has a bug.
/// - A second request with a key whose first is still being answered (in this process) is a 409: retry later.
/// - Only successful answers are kept; a refusal is not, so a corrected retry may use the same key.
/// - Keeping and finding answers is bounded by the transaction deadline, as every statement of a request is: a
///   statement on a connection that died unnoticed (a PostgreSQL restart) must not hold the key's slot, and with it
///   every retry, for ever.
/// - The answer is kept just after the handler's transaction commits. A crash in between loses the kept answer,
///   not the write: the retry runs again, and Caretide's writes are idempotent by the client's ids (a re-sent
///   reading answers "duplicate" with its event id), so nothing is stored twice even then.
final class IdempotencyKeys: Sendable {
    let database: Database
    let logger: Logger
    let timeout: Duration
    private let inFlight = Mutex<Set<String>>([])

    static let retention = "24 hours"

    /// Whose keys a row holds: a key is the caller's, so two callers may use the same one. A patient's erasure deletes
    /// the rows of `owner(role: .patient, subject: patientID)`.
    static func owner(role: Role, subject: String) -> String { "\(role.rawValue):\(subject)" }
    static let maximumKeyLength = 255

    init(database: Database, logger: Logger, timeout: Duration) {
        self.database = database
        self.logger = logger
        self.timeout = timeout
    }

    func run(
        key: String, request: Request, context: CaretideRequestContext, _ next: (Request, CaretideRequestContext) async throws -> Response
    ) async throws -> Response {
        guard (1...Self.maximumKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw HTTPProblem(
                status: .badRequest, error: "the Idempotency-Key header is invalid",
                violations: [
                    SchemaViolation(
                        pointer: JSONPointer(tokens: ["Idempotency-Key"]), message: "must be 1 to \(Self.maximumKeyLength) visible ASCII characters")
                ])
        }
        let owner = context.identity.map { Self.owner(role: $0.role, subject: $0.subject) } ?? "anonymous"
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        var request = request
        request.body = RequestBody(buffer: body)
        // Bound as bytea: PostgresNIO sends a ByteBuffer as bytes (an array of UInt8 would be an array).
        var fingerprint = ByteBuffer(string: "\(request.method.rawValue) \(request.uri.description)\n")
        fingerprint.writeImmutableBuffer(body)

        if let kept = try await kept(owner: owner, key: key, fingerprint: fingerprint) {
            guard kept.sameRequest else {
                throw HTTPProblem(
                    status: .unprocessableContent, error: "this Idempotency-Key was used for a different request",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["Idempotency-Key"]), message: "must be new for a new request")])
            }
            var headers: HTTPFields = [.contentType: kept.contentType ?? "application/json"]
            headers[.idempotentReplayed] = "true"
            return Response(status: .init(code: kept.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: kept.response)))
        }

        let slot = owner + "\u{1F}" + key
        guard inFlight.withLock({ $0.insert(slot).inserted }) else {
            throw HTTPProblem(status: .conflict, error: "a request with this Idempotency-Key is still being answered; retry when it is")
        }
        defer { _ = inFlight.withLock { $0.remove(slot) } }

        var response = try await next(request, context)
        guard (200..<300).contains(response.status.code) else { return response }
        let collector = BodyCollector()
        try await response.body.write(collector)
        let answer = collector.buffer
        response.body = ResponseBody(byteBuffer: answer)
        do {
            let (logger, status, contentType, fingerprint) = (self.logger, response.status.code, response.headers[.contentType], fingerprint)
            try await database.transaction(timeout: timeout) { connection in
                try await connection.query(
                    """
                    INSERT INTO idempotency_keys (owner, key, request_hash, status, response, content_type)
                    VALUES (\(owner), \(key), sha256(\(fingerprint)), \(status), \(answer), \(contentType))
                    ON CONFLICT (owner, key) DO NOTHING
                    """, logger: logger)
            }
        } catch {
            // The write itself is done and answered; a retry will find it by the client's ids.
            logger.warning(
                "an idempotent answer could not be kept", metadata: error.logMetadata.merging([LogKey.requestID: "\(context.requestID)"]) { $1 })
        }
        return response
    }

    private struct Kept {
        let status: Int
        let response: [UInt8]
        let sameRequest: Bool
        /// The first answer's `Content-Type` (nil for answers kept before it was, all JSON).
        let contentType: String?
    }

    private func kept(owner: String, key: String, fingerprint: ByteBuffer) async throws -> Kept? {
        let logger = self.logger
        return try await database.transaction(timeout: timeout) { connection in
            let rows = try await connection.query(
                """
                SELECT status, response, request_hash = sha256(\(fingerprint)), content_type FROM idempotency_keys
                WHERE owner = \(owner) AND key = \(key) AND created_at > now() - \(Self.retention)::interval
                """, logger: logger)
            for try await (status, response, same, contentType) in rows.decode((Int, ByteBuffer, Bool, String?).self) {
                return Kept(status: status, response: Array(buffer: response), sameRequest: same, contentType: contentType)
            }
            return nil
        }
    }

    /// Forgets keys older than a day, every hour.
    func expiry(readiness: ReadinessState, metrics: ServiceMetrics) -> PeriodicJob {
        PeriodicJob(name: "idempotency key expiry", interval: .seconds(3600), readiness: readiness, metrics: metrics, logger: logger) {
            [database, logger] in
            try await database.client.query(
                "DELETE FROM idempotency_keys WHERE created_at < now() - \(Self.retention)::interval", logger: logger)
            return 0
        }
    }
}

/// Gathers a response body as it is written (a class: the writer is consumed by the write).
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws { self.buffer.writeImmutableBuffer(buffer) }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
