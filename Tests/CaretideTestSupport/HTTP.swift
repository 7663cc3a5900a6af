public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small HTTP client for tests (Foundation's URLSession; no extra package). Every request carries a bearer token
/// from the tests' identity provider: by default the owner's of what the path names (`Caller.owner`).
public enum HTTP {
    public struct Reply: Sendable {
        public let status: Int
        public let body: Data
        public let headers: [String: String]

        public func json() throws -> Any { try JSONSerialization.jsonObject(with: body) }
        /// The items of a page (`{"items": [...], "nextCursor": ...}`).
        public func items() throws -> [[String: Any]] {
            guard let items = (try json() as? [String: Any])?["items"] as? [[String: Any]] else { throw NotAPage(text: text) }
            return items
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// A response header, by case-insensitive name.
        public func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    public static func get(_ url: String, as caller: Caller = .owner) async throws -> Reply {
        try await send(method: "GET", url, body: nil, as: caller)
    }

    /// The value of one series on a service's `/metrics` (`name{labels}` as Prometheus prints it), nil when the
    /// service does not answer or does not have the series.
    public static func metric(_ baseURL: String, _ series: String) async -> Double? {
        guard let reply = try? await get(baseURL + "/metrics", as: .anonymous), reply.status == 200 else { return nil }
        let prefix = series + " "
        for line in reply.text.split(separator: "\n") where line.hasPrefix(prefix) {
            return Double(line.dropFirst(prefix.count))
        }
        return nil
    }

    public static func post(_ url: String, json: String, as caller: Caller = .owner) async throws -> Reply {
        try await send(method: "POST", url, body: Data(json.utf8), as: caller)
    }

    public static func send(method: String, _ url: String, json: String = "{}", as caller: Caller = .owner) async throws -> Reply {
        try await send(method: method, url, body: method == "DELETE" || method == "GET" ? nil : Data(json.utf8), as: caller)
    }

    public static func send(
        method: String, _ url: String, body: Data?, as caller: Caller, headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        // Generous: the parallel group runs dozens of stacks on two cores, and an answer held behind them is slow, not
        // lost. Tests assert behaviour, never speed.
        request.timeoutInterval = 45
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        if let authorization = try await caller.authorization(for: url) {
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await boundedData(for: request)
        let http = response as? HTTPURLResponse
        var replyHeaders: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { replyHeaders["\(name)"] = "\(value)" }
        return Reply(status: http?.statusCode ?? 0, body: data, headers: replyHeaders)
    }
}

/// A request that had no answer within `HTTP.hardLimit`, whatever URLSession's own timeout did.
public struct NoAnswer: Error, CustomStringConvertible {
    public let url: String
    public var description: String { "no answer from \(url) within \(HTTP.hardLimit)" }
}

extension HTTP {
    /// Longer than any answer a test waits for; a request past it fails the test instead of hanging the run.
    public static let hardLimit: Duration = .seconds(60)

    /// URLSession's answer, or `NoAnswer` after `hardLimit`. Foundation's URLSession on Linux has been seen to miss its
    /// own `timeoutInterval` and never return, which held a whole test run up; this bounds the wait from outside.
    static func boundedData(for request: URLRequest) async throws -> (Data, URLResponse) {
        let url = request.url?.absoluteString ?? ""
        var transfer: Task<Void, Never>?
        let answer = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
            let once = ResumeOnce(continuation)
            transfer = Task {
                do { once.resume(with: .success(try await URLSession.shared.data(for: request))) } catch { once.resume(with: .failure(error)) }
            }
            Task {
                try? await Task.sleep(for: hardLimit)
                once.resume(with: .failure(NoAnswer(url: url)))
            }
        }
        transfer?.cancel()
        return answer
    }
}

/// A continuation resumed by whichever of its racers comes first; the others find it settled.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let pending: Mutex<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) { pending = Mutex(continuation) }

    func resume(with result: Result<Value, any Error>) {
        pending.withLock { continuation in
            continuation?.resume(with: result)
            continuation = nil
        }
    }
}

struct NotAPage: Error, CustomStringConvertible {
    let text: String
    var description: String { "not a page: \(text.prefix(300))" }
}
