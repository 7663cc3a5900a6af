/// The batching rules of a group commit, as a value (`GroupCommitter` drives it): writes wait in arrival order; a
/// batch takes the oldest, up to `maximumBatch`, and each key once, so a later write of a key already in the batch
/// waits for the next one, in its order; one batch is written at a time, and the writer goes on while writes wait.
/// So a write arriving when nothing is being written goes at once (batching costs nothing when idle), and batches
/// grow by themselves with the load.
///
/// Under a load (the last batch held at least `busyBatch` writes), a batch that is not full first waits out `window`
/// from the last commit: the clients that commit answered send their next writes meanwhile, and one transaction
/// carries them instead of two. A light load never waits, nor does a full batch.
struct GroupCommitQueue<Item> {
    let maximumBatch: Int
    let window: Duration
    /// The smallest batch after which the next waits out the window: below it the load is light, and waiting would
    /// save little.
    static var busyBatch: Int { 8 }
    private var waiting: [(item: Item, key: AnyHashable?)] = []
    /// Whether a writer is taking batches: from the enqueue that started it until `nextBatch` finds nothing waiting.
    private(set) var writing = false
    private var lastBatch = 0
    private var lastCommitted: ContinuousClock.Instant?

    init(maximumBatch: Int, window: Duration = .zero) {
        self.maximumBatch = max(1, maximumBatch)
        self.window = window
    }

    /// Until when the writer waits before taking the next batch; nil to take it now.
    func windowOpens(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard window > .zero, lastBatch >= Self.busyBatch, !waiting.isEmpty, waiting.count < maximumBatch, let lastCommitted
        else { return nil }
        let opens = lastCommitted + window
        return now < opens ? opens : nil
    }

    /// The writer committed the batch it took last.
    mutating func committed(at instant: ContinuousClock.Instant) {
        lastCommitted = instant
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
        lastBatch = batch.count
        return batch
    }
}
