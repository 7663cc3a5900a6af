import CaretideKafka

/// The bounded queue between the consumer's poll loop and its lanes, the workers that apply batches side by side.
///
/// A lane takes every queued message it may, in order, up to a batch: a message may be taken unless another lane is
/// still applying a message of its partition, so a partition's messages (a patient's events) are applied in order and
/// never by two lanes at once. A lane takes only when no other lane is busy, or when at least `sharingThreshold`
/// messages are there for it: under a light load one lane (the lowest-numbered that waits, so that a light load and a
/// stuck lane always show as `consumer lane 0`) applies everything, in batches as large as the load makes
/// them (two lanes splitting every batch cost a fifth more CPU per reading, since a batch's statements are shared by
/// its events); a backlog brings the other lanes in (scoring alone drains a backlog about half again as fast with two
/// lanes as with one). BENCHMARKS.md, "Consumer lanes that share the work".
///
/// When the queue is full, `put` waits: a slow database slows the polling instead of filling memory.
actor MessageLanes {
    private struct PartitionKey: Hashable {
        let topic: String
        let partition: Int32
    }

    private var queued: [IncomingMessage] = []
    /// The partitions each lane is applying messages of, from its `take` until its next one.
    private var applying: [Int: Set<PartitionKey>] = [:]
    private var closed = false
    /// The lanes inside `take`: waiting, or about to look again.
    private(set) var idle: Set<Int> = []
    private var takers: [Int: CheckedContinuation<Void, Never>] = [:]
    private var putters: [CheckedContinuation<Void, Never>] = []
    let capacity: Int
    let sharingThreshold: Int
    /// The shortest time between two batches smaller than `sharingThreshold` (`RuntimeLimits.consumerBatchWindow`),
    /// kept only after a batch of at least `busyBatch` messages: a load that batches by itself already. A light load,
    /// an event or two a batch, goes at once and pays no latency for a saving it would not make.
    let batchWindow: Duration
    let busyBatch: Int
    /// When the last batch was handed to a lane, and its size.
    private var lastTaken: (at: ContinuousClock.Instant, count: Int)?
    /// Wakes the lanes when the window since `lastTaken` has passed.
    private var windowTimer: Task<Void, Never>?

    init(capacity: Int, sharingThreshold: Int, batchWindow: Duration = .zero, busyBatch: Int = 1) {
        self.capacity = capacity
        self.sharingThreshold = max(1, sharingThreshold)
        self.batchWindow = batchWindow
        self.busyBatch = busyBatch
    }

    /// Appends messages, waiting while the queue is full. After `close()` the messages are dropped: nothing takes
    /// them, and their offsets are never committed, so they are redelivered.
    func put(_ messages: [IncomingMessage]) async {
        while queued.count >= capacity, !closed {
            await withCheckedContinuation { putters.append($0) }
        }
        guard !closed else { return }
        queued += messages
        wakeTakers()
    }

    /// The next batch for `lane`, waiting until there is one; nil once the queue is closed and nothing is left that
    /// the lane may take. Calling it says that the lane's last batch is applied and its offsets committed: its
    /// partitions are free for every lane again. A lane whose batch failed does not call it again, so what follows
    /// its partitions is never taken (nor committed) and is redelivered to whoever consumes next.
    func take(lane: Int, upTo maxMessages: Int) async -> [IncomingMessage]? {
        release(lane)
        idle.insert(lane)
        defer { idle.remove(lane) }
        while true {
            let othersApplying = applying.values.reduce(into: Set<PartitionKey>()) { $0.formUnion($1) }
            let batch = takeable(excluding: othersApplying, upTo: maxMessages)
            // With no other lane busy, the lowest waiting lane takes; the others wait again, and look once more when it
            // has taken (`take(_:lane:)`), for a backlog of other partitions.
            let mayTake =
                closed || (othersApplying.isEmpty ? lane == idle.min() : batch.count >= min(sharingThreshold, maxMessages))
            if !batch.isEmpty, mayTake {
                // Under a load, a small batch soon after the last one waits out the window, gathering what arrives
                // meanwhile: a batch's statements are shared by its events. The first batch after a quiet spell goes
                // at once.
                if let opens = windowOpens(for: batch.count, upTo: maxMessages) {
                    wakeTakers(at: opens)
                } else {
                    lastTaken = (.now, batch.count)
                    return take(batch, lane: lane)
                }
            }
            // Closed: what is left is taken whatever its size; what waits behind another lane's partitions is that
            // lane's to take (or, if that lane's batch failed, nobody's: its offsets are not committed).
            if closed { return nil }
            await withCheckedContinuation { takers[lane] = $0 }
        }
    }

    /// When a batch of `count` messages may be handed out, if not now: a backlog, anything once the queue is closed,
    /// and anything after a batch under `busyBatch` goes at once.
    private func windowOpens(for count: Int, upTo maxMessages: Int) -> ContinuousClock.Instant? {
        guard batchWindow > .zero, !closed, count < min(sharingThreshold, maxMessages), let lastTaken, lastTaken.count >= busyBatch
        else { return nil }
        let opens = lastTaken.at + batchWindow
        return ContinuousClock.now < opens ? opens : nil
    }

    /// Wakes the waiting lanes at `instant` (they look again, as after a `put`), unless a wake-up is already set.
    private func wakeTakers(at instant: ContinuousClock.Instant) {
        guard windowTimer == nil else { return }
        windowTimer = Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            self.windowClosed()
        }
    }

    private func windowClosed() {
        windowTimer = nil
        wakeTakers()
    }

    /// No more messages will come: the lanes take what is left, then `take` returns nil; waiting `put`s return.
    func close() {
        closed = true
        windowTimer?.cancel()
        wakeTakers()
        wakePutters()
    }

    /// Positions in `queued` of the oldest messages not of `excluded` partitions, up to `maxMessages`. It stops at a
    /// full batch and reads each message where it lies: every waiting lane asks after every `put`, and copying the
    /// whole queue each time was a visible share of a consumer's work under a backlog.
    private func takeable(excluding excluded: Set<PartitionKey>, upTo maxMessages: Int) -> [Int] {
        guard !excluded.isEmpty else { return Array(queued.indices.prefix(maxMessages)) }
        var positions: [Int] = []
        var position = queued.startIndex
        while position < queued.endIndex, positions.count < maxMessages {
            if !excluded.contains(PartitionKey(topic: queued[position].topic, partition: queued[position].partition)) {
                positions.append(position)
            }
            position += 1
        }
        return positions
    }

    private func take(_ positions: [Int], lane: Int) -> [IncomingMessage] {
        let taken = positions.map { queued[$0] }
        if positions.last == positions.count - 1 {
            queued.removeFirst(positions.count)  // the oldest, as when no other lane is applying
        } else {
            let chosen = Set(positions)
            queued = queued.enumerated().filter { !chosen.contains($0.offset) }.map(\.element)
        }
        applying[lane] = Set(taken.map { PartitionKey(topic: $0.topic, partition: $0.partition) })
        wakePutters()
        // What is left may now be a backlog for a lane that waited while none was applying: it looks again.
        if !queued.isEmpty { wakeTakers() }
        return taken
    }

    private func release(_ lane: Int) {
        guard applying.removeValue(forKey: lane) != nil else { return }
        wakeTakers()
    }

    private func wakeTakers() {
        let waiting = takers
        takers = [:]
        for taker in waiting.values { taker.resume() }
    }

    private func wakePutters() {
        let waiting = putters
        putters = []
        for putter in waiting { putter.resume() }
    }
}
