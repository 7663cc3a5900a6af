import CaretideStore
import Foundation

/// Concurrent writes of one kind share one transaction: a group commit. Under load, a single-reading POST costs a
/// transaction of its own (BEGIN, its rows, its audit row and events, COMMIT, a WAL flush); coalesced, twenty
/// requests pay for one. Each write is answered only after the commit that holds it, with its own outcome, and its
/// audit entry is recorded in that transaction: the guarantees of `ServiceContext.transaction(auditing:status:_:)`,
/// shared.
///
/// A batch closes on size (`maximumBatch`) or when the previous one has committed: the first write after a quiet
/// moment goes at once, so batching costs nothing when idle and grows by itself with the load. Writes with the same
/// `key` never share a batch (a later one waits for the next), so `apply` sees each key once.
///
/// A write's own refusal (a duplicate, a conflict) is its `Result.failure` from `apply` and fails no other write. If
/// the transaction itself fails (a statement error, a deadlock), each write of the batch is tried again alone, so only
/// the one at fault fails; a timeout fails them all, since trying again alone would only wait as long again.
public actor GroupCommit<Write: Sendable, Outcome: Sendable> {
    /// Applies a batch inside its transaction; returns one result per write, in order. A failure must leave nothing of
    /// its write behind in the transaction.
    public typealias Apply = @Sendable (_ writes: [Write], _ handler: HandlerContext) async throws -> [Result<Outcome, any Error>]

    private struct Pending {
        let write: Write
        let origin: WriteOrigin
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private let context: ServiceContext
    private let name: String
    private let maximumBatch: Int
    private let key: @Sendable (Write) -> AnyHashable
    private let status: @Sendable (Outcome) -> Int
    private let apply: Apply
    private var pending: [Pending] = []
    private var writing = false

    /// - Parameters:
    ///   - name: the `group_commit` label of the metrics (`caretide_group_commits_total`,
    ///     `caretide_group_committed_writes_total`: their ratio is the mean batch).
    ///   - status: the HTTP status a write's outcome is answered with, for its audit entry.
    public init(
        name: String, context: ServiceContext, maximumBatch: Int = 64, key: @escaping @Sendable (Write) -> AnyHashable,
        status: @escaping @Sendable (Outcome) -> Int, apply: @escaping Apply
    ) {
        self.name = name
        self.context = context
        self.maximumBatch = max(1, maximumBatch)
        self.key = key
        self.status = status
        self.apply = apply
    }

    /// Returns the write's outcome once the transaction holding it has committed; throws its refusal, or the
    /// transaction's failure.
    public func submit(_ write: Write, origin: WriteOrigin) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            pending.append(Pending(write: write, origin: origin, continuation: continuation))
            if !writing {
                writing = true
                Task { await writeWhilePending() }
            }
        }
    }

    private func writeWhilePending() async {
        while !pending.isEmpty {
            let batch = nextBatch()
            let results = await commit(batch.map { ($0.write, $0.origin) })
            context.metrics.count("caretide_group_commits_total", dimensions: [("group_commit", name)])
            context.metrics.count("caretide_group_committed_writes_total", dimensions: [("group_commit", name)], by: batch.count)
            for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
        }
        writing = false
    }

    /// The oldest pending writes, up to `maximumBatch`, each key once; the rest stay pending in their order.
    private func nextBatch() -> [Pending] {
        var batch: [Pending] = []
        var rest: [Pending] = []
        var keys: Set<AnyHashable> = []
        for write in pending {
            if batch.count < maximumBatch, keys.insert(key(write.write)).inserted {
                batch.append(write)
            } else {
                rest.append(write)
            }
        }
        pending = rest
        return batch
    }

    /// One transaction for the batch, or, if it fails as a whole, one for each write.
    private func commit(_ writes: [(Write, WriteOrigin)]) async -> [Result<Outcome, any Error>] {
        do {
            return try await context.transaction(auditing: writes.map(\.1), status: status) { [apply] handler in
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
            for write in writes { results += await commit([write]) }
            return results
        }
    }
}

/// `GroupCommit.Apply` returned another number of results than it was given writes.
struct GroupCommitDefect: Error, CustomStringConvertible {
    let writes: Int
    let results: Int
    var description: String { "a group commit's apply returned \(results) results for \(writes) writes" }
}
