import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small HTTP client for tests (Foundation's URLSession; no extra package).
public enum HTTP {
    public struct Reply: Sendable {
        public let status: Int
        public let body: Data

        public func json() throws -> Any { try JSONSerialization.jsonObject(with: body) }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public static func get(_ url: String) async throws -> Reply {
        try await send(URLRequest(url: URL(string: url)!))
    }

    public static func post(_ url: String, json: String) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        return try await send(request)
    }

    static func send(_ request: URLRequest) async throws -> Reply {
        var request = request
        request.timeoutInterval = 10
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }
}

extension HTTP {
    public static func send(method: String, _ url: String, json: String = "{}") async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if method != "DELETE" { request.httpBody = Data(json.utf8) }
        return try await send(request)
    }
}
