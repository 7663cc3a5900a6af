/// `operation`'s result, or ``WaitTimedOut`` naming what was awaited once `limit` has passed, even if the operation
/// never ends: a continuation nobody resumes, a blocking C call, a task that ignores cancellation. Such a wait then
/// fails its test by name, where a task group or a timeout checked between steps would wait for it as long as it
/// lasts and hold the whole run with no thread busy. The operation is cancelled and left to end in the background.
/// `limit` is a generous bound on waiting, never a performance assertion; the caller's own cancellation is not
/// forwarded (the operation runs apart from it).
public func bounded<T: Sendable>(
    within limit: Duration, waitingFor what: @escaping @Sendable () -> String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    defer {
        work?.cancel()
        timer?.cancel()
    }
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let once = ResumeOnce(continuation)
        work = Task {
            do { once.resume(with: .success(try await operation())) } catch { once.resume(with: .failure(error)) }
        }
        timer = Task {
            try? await Task.sleep(for: limit)
            // Cancelled: the operation has answered already.
            guard !Task.isCancelled else { return }
            once.resume(with: .failure(WaitTimedOut(what: what())))
        }
    }
}
