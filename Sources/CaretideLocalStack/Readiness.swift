import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Waits for a service's `/readyz` to answer 200.
public enum ReadinessProbe {
    public struct TimedOut: Error, CustomStringConvertible {
        public let url: String
        public var description: String { "\(url) did not become ready in time" }
    }

    public static func isReady(_ baseURL: String) async -> Bool {
        guard let url = URL(string: baseURL + "/readyz") else { return false }
        var request = URLRequest(url: url)
        request.timeoutInterval = 3
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    public static func waitUntilReady(_ baseURL: String, timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await isReady(baseURL) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TimedOut(url: baseURL)
    }
}
