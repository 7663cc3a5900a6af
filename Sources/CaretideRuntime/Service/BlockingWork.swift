import Dispatch

/// Runs CPU-heavy work (a second of it or more) on a Dispatch thread instead of Swift's cooperative pool, which has
/// a thread per core (two here): held there, it would stall every request and consumer of the service meanwhile.
public func runOffCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
