import CaretideStore
import Foundation

/// Concurrent writes of one kind share one transaction: a group commit. Under load, a single-reading POST costs a
/// transaction of its own (BEGIN, its rows, its audit row and events, COMMIT, a WAL flush); coalesced, twenty
/// requests pay for one. Each write is answered only after the commit that holds it, with its own outcome, and its
/// audit entry is recorded in that transaction: the guarantees of `ServiceContext.transaction(auditing:status:_:)`,
/// shared.
///
/// A batch closes on size (`maximumBatch`) or when the previous one has committed: the first write after a quiet
/// moment goes at once, so batching costs nothing when idle and grows by itself with the load. Under a load, a batch
/// that is not full also waits out `RuntimeLimits.groupCommitWindow` after the last commit (`GroupCommitQueue`). Writes with the same
/// `key` never share a batch (a later one waits for the next), so `apply` sees each key once.
///
/// A write's own refusal (a duplicate, a conflict) is its `Result.failure` from `apply` and fails no other write. If
/// the transaction itself fails (a statement error, a deadlock), each write of the batch is tried again alone, so only
/// the one at fault fails; a timeout fails them all, since trying again alone would only wait as long again.
public struct GroupCommit<Write: Sendable, Outcome: Sendable>: Sendable {
    /// Applies a batch inside its transaction; returns one result per write, in order. A failure must leave nothing of
    /// its write behind in the transaction.
    public typealias Apply = @Sendable (_ writes: [Write], _ handler: HandlerContext) async throws -> [Result<Outcome, any Error>]

    private let committer: GroupCommitter<(Write, WriteOrigin), Outcome>

    /// - Parameters:
    ///   - name: the `group_commit` label of the metrics (`caretide_group_commits_total`,
    ///     `caretide_group_committed_writes_total`: their ratio is the mean batch).
    ///   - status: the HTTP status a write's outcome is answered with, for its audit entry.
    public init(
        name: String, context: ServiceContext, maximumBatch: Int = 64, key: @escaping @Sendable (Write) -> AnyHashable,
        status: @escaping @Sendable (Outcome) -> Int, apply: @escaping Apply
    ) {
        committer = GroupCommitter(
            name: name, metrics: context.metrics, maximumBatch: maximumBatch, window: context.limits.groupCommitWindow, key: { key($0.0) }
        ) { writes in
            await Self.commit(writes, context: context, status: status, apply: apply)
        }
    }

    /// Returns the write's outcome once the transaction holding it has committed; throws its refusal, or the
    /// transaction's failure.
    public func submit(_ write: Write, origin: WriteOrigin) async throws -> Outcome {
        try await committer.submit((write, origin))
    }

    /// One transaction for the batch, or, if it fails as a whole, one for each write.
    private static func commit(
        _ writes: [(Write, WriteOrigin)], context: ServiceContext, status: @escaping @Sendable (Outcome) -> Int, apply: @escaping Apply
    ) async -> [Result<Outcome, any Error>] {
        do {
            return try await context.transaction(auditing: writes.map(\.1), status: status) { handler in
                let results = try await apply(writes.map(\.0), handler)
                // One answer per write, or a waiting request would never be answered: a defect, so nothing commits.
                guard results.count == writes.count else { throw GroupCommitDefect(writes: writes.count, results: results.count) }
                return results
            }
        } catch {
            guard writes.count > 1, !(error is DatabaseTimeout), !(error is CancellationError) else {
                return Array(repeating: .failure(error), count: writes.count)
            }
            var results: [Result<Outcome, any Error>] = []
            for write in writes { results += await commit([write], context: context, status: status, apply: apply) }
            return results
        }
    }
}

/// The loop every group commit shares (request writes, `GroupCommit`; audit entries, `AuditTrail`): each submitted
/// item waits in a `GroupCommitQueue`, one batch at a time is committed by `commit`, and each item's submitter gets
/// its own result once the batch holding it is committed.
actor GroupCommitter<Item: Sendable, Outcome: Sendable> {
    /// Commits a batch; returns one result per item, in order.
    typealias Commit = @Sendable (_ items: [Item]) async -> [Result<Outcome, any Error>]

    private struct Waiting {
        let item: Item
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private let name: String
    private let metrics: ServiceMetrics?
    private let key: @Sendable (Item) -> AnyHashable?
    private let commit: Commit
    private var queue: GroupCommitQueue<Waiting>

    /// - Parameter key: items with the same key never share a batch; nil for an item no other excludes.
    init(
        name: String, metrics: ServiceMetrics?, maximumBatch: Int, window: Duration = .zero,
        key: @escaping @Sendable (Item) -> AnyHashable? = { _ in nil }, commit: @escaping Commit
    ) {
        self.name = name
        self.metrics = metrics
        self.key = key
        self.commit = commit
        queue = GroupCommitQueue(maximumBatch: maximumBatch, window: window)
    }

    func submit(_ item: Item) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            if queue.enqueue(Waiting(item: item, continuation: continuation), key: key(item)) {
                Task { await writeWhileWaiting() }
            }
        }
    }

    private func writeWhileWaiting() async {
        while true {
            // Submissions go on meanwhile: the actor is free while its writer sleeps.
            if let opens = queue.windowOpens(at: .now) { try? await Task.sleep(until: opens, clock: .continuous) }
            guard let batch = queue.nextBatch() else { return }
            let results = await commit(batch.map(\.item))
            queue.committed(at: .now)
            metrics?.count("caretide_group_commits_total", dimensions: [("group_commit", name)])
            metrics?.count("caretide_group_committed_writes_total", dimensions: [("group_commit", name)], by: batch.count)
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            // A commit that broke its contract (fewer results) must not leave a submitter waiting for ever.
            for waiting in batch.dropFirst(results.count) {
                waiting.continuation.resume(throwing: GroupCommitDefect(writes: batch.count, results: results.count))
            }
        }
    }
}

/// `GroupCommit.Apply` returned another number of results than it was given writes.
struct GroupCommitDefect: Error, CustomStringConvertible {
    let writes: Int
    let results: Int
    var description: String { "a group commit's apply returned \(results) results for \(writes) writes" }
}
