/// The batching rules of a group commit, as a value (`GroupCommitter` drives it): writes wait in arrival order; a
/// batch takes the oldest, up to `maximumBatch`, and each key once, so a later write of a key already in the batch
/// waits for the next one, in its order; one batch is written at a time, and the writer goes on while writes wait.
/// So a write arriving when nothing is being written goes at once (batching costs nothing when idle), and batches
/// grow by themselves with the load.
struct GroupCommitQueue<Item> {
    let maximumBatch: Int
    private var waiting: [(item: Item, key: AnyHashable?)] = []
    /// Whether a writer is taking batches: from the enqueue that started it until `nextBatch` finds nothing waiting.
    private(set) var writing = false

    init(maximumBatch: Int) {
        self.maximumBatch = max(1, maximumBatch)
    }

    /// Adds a write (`key` nil: one no other write excludes). Returns true when no writer is taking batches, so the
    /// caller starts one; from then on it counts as taking them.
    mutating func enqueue(_ item: Item, key: AnyHashable?) -> Bool {
        waiting.append((item, key))
        guard !writing else { return false }
        writing = true
        return true
    }

    /// The next batch for the writer, or nil when nothing waits, and then the writer is done: the next write starts
    /// another.
    mutating func nextBatch() -> [Item]? {
        guard !waiting.isEmpty else {
            writing = false
            return nil
        }
        var batch: [Item] = []
        var rest: [(item: Item, key: AnyHashable?)] = []
        var keys: Set<AnyHashable> = []
        for entry in waiting {
            if batch.count < maximumBatch, entry.key.map({ keys.insert($0).inserted }) ?? true {
                batch.append(entry.item)
            } else {
                rest.append(entry)
            }
        }
        waiting = rest
        return batch
    }
}
