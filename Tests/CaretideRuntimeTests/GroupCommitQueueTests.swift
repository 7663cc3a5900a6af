import Testing

@testable import CaretideRuntime

/// The batching rules every group commit follows (request writes, audit entries): at once when idle, the oldest
/// first, a key once a batch, bounded, and a writer that runs exactly while writes wait.
@Suite struct GroupCommitQueueTests {
    /// Every batch the writer would take now, until it stops.
    static func drain<Item>(_ queue: inout GroupCommitQueue<Item>) -> [[Item]] {
        var batches: [[Item]] = []
        while let batch = queue.nextBatch() { batches.append(batch) }
        return batches
    }

    @Test("the first write after a quiet moment starts a writer and goes alone at once; the writer stops when none waits")
    func idleWriteGoesAtOnce() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 64)
        let started = queue.enqueue(1, key: nil)
        let writing = queue.writing
        let batches = Self.drain(&queue)
        #expect(started && writing && batches == [[1]] && !queue.writing)
        let startedAgain = queue.enqueue(2, key: nil)
        #expect(startedAgain)
    }

    @Test("writes arriving while a batch is written start no second writer and go together next, in arrival order")
    func writesWhileWritingShareTheNextBatch() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 64)
        let first = queue.enqueue(1, key: nil)
        let inFlight = queue.nextBatch()
        let later = (2...5).map { queue.enqueue($0, key: nil) }
        let batches = Self.drain(&queue)
        #expect(first && inFlight == [1] && later == [false, false, false, false] && batches == [[2, 3, 4, 5]])
    }

    @Test("a batch holds at most maximumBatch writes; the rest wait for the next, in order")
    func batchesAreBounded() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 3)
        for write in 1...7 { _ = queue.enqueue(write, key: nil) }
        let batches = Self.drain(&queue)
        #expect(batches == [[1, 2, 3], [4, 5, 6], [7]])
    }

    @Test("two writes of one key never share a batch: the later waits for the next, keeping its place among the waiting")
    func aKeyOnceABatch() {
        var queue = GroupCommitQueue<String>(maximumBatch: 64)
        for (write, key) in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("c1", "c"), ("a3", "a")] { _ = queue.enqueue(write, key: key) }
        _ = queue.enqueue("free", key: nil)
        let batches = Self.drain(&queue)
        #expect(batches == [["a1", "b1", "c1", "free"], ["a2"], ["a3"]])
    }

    @Test("a write of a key skipped for this batch does not count against its size")
    func skippedKeysLeaveRoom() {
        var queue = GroupCommitQueue<String>(maximumBatch: 2)
        for (write, key) in [("a1", "a"), ("a2", "a"), ("b1", "b"), ("c1", "c")] { _ = queue.enqueue(write, key: key) }
        let batches = Self.drain(&queue)
        #expect(batches == [["a1", "b1"], ["a2", "c1"]])
    }

    @Test("a maximum below one is one")
    func atLeastOne() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 0)
        for write in 1...2 { _ = queue.enqueue(write, key: nil) }
        let batches = Self.drain(&queue)
        #expect(batches == [[1], [2]])
    }

    @Test("under a load, a batch that is not full waits out the window from the last commit; a light load never waits")
    func windowUnderALoad() {
        let start = ContinuousClock.now
        var queue = GroupCommitQueue<Int>(maximumBatch: 64, window: .milliseconds(3))
        for write in 1...7 { _ = queue.enqueue(write, key: nil) }
        let light = queue.nextBatch()
        queue.committed(at: start)
        _ = queue.enqueue(8, key: nil)
        // After a batch of seven, the next goes at once.
        #expect(light?.count == 7 && queue.windowOpens(at: start) == nil)
        for write in 9...15 { _ = queue.enqueue(write, key: nil) }
        let busy = queue.nextBatch()
        queue.committed(at: start)
        // Nothing waits: the writer stops, whatever the window.
        #expect(busy?.count == GroupCommitQueue<Int>.busyBatch && queue.windowOpens(at: start) == nil)
        _ = queue.enqueue(16, key: nil)
        #expect(queue.windowOpens(at: start) == start + .milliseconds(3))
        #expect(queue.windowOpens(at: start + .milliseconds(2)) == start + .milliseconds(3))
        #expect(queue.windowOpens(at: start + .milliseconds(3)) == nil)
        #expect(queue.nextBatch() == [16])
    }

    @Test("a full batch does not wait, and a window of zero never does")
    func fullBatchesAndNoWindowGoAtOnce() {
        let start = ContinuousClock.now
        var queue = GroupCommitQueue<Int>(maximumBatch: 8, window: .milliseconds(3))
        for write in 1...8 { _ = queue.enqueue(write, key: nil) }
        _ = queue.nextBatch()
        queue.committed(at: start)
        for write in 9...15 { _ = queue.enqueue(write, key: nil) }
        let sevenWait = queue.windowOpens(at: start) != nil
        _ = queue.enqueue(16, key: nil)
        #expect(sevenWait && queue.windowOpens(at: start) == nil)

        var unwindowed = GroupCommitQueue<Int>(maximumBatch: 64)
        for write in 1...20 { _ = unwindowed.enqueue(write, key: nil) }
        _ = unwindowed.nextBatch()
        unwindowed.committed(at: start)
        _ = unwindowed.enqueue(21, key: nil)
        #expect(unwindowed.windowOpens(at: start) == nil)
    }
}
