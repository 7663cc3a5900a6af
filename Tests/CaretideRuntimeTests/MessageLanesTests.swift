import CaretideKafka
import Synchronization
import Testing

@testable import CaretideRuntime

/// The queue between a consumer's poll loop and its lanes: one lane at a time under a light load, more on a backlog,
/// a partition never in two lanes at once and always in order.
@Suite struct MessageLanesTests {
    static func messages(_ partition: Int32, _ offsets: ClosedRange<Int64>, topic: String = "caretide.measurements") -> [IncomingMessage] {
        offsets.map { IncomingMessage(topic: topic, partition: partition, offset: $0, value: []) }
    }

    static func taken(_ messages: [IncomingMessage]?) -> [String] {
        (messages ?? []).map { "\($0.partition):\($0.offset)" }
    }

    @Test("a second lane waits while the first applies, until a backlog of its threshold is there for it")
    func secondLaneOnlyOnABacklog() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 10)
        await lanes.put(Self.messages(0, 0...2))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["0:0", "0:1", "0:2"])
        let second = Task { await lanes.take(lane: 1, upTo: 100) }

        // Fewer than the threshold, of other partitions: they wait for lane 0's next batch rather than split it.
        await lanes.put(Self.messages(1, 0...4))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["1:0", "1:1", "1:2", "1:3", "1:4"])

        // A backlog: lane 1 takes it, but not partition 1, which lane 0 is still applying.
        await lanes.put(Self.messages(1, 5...6) + Self.messages(2, 0...5) + Self.messages(3, 0...5))
        let backlog = Self.taken(await second.value)
        #expect(backlog == (0...5).map { "2:\($0)" } + (0...5).map { "3:\($0)" })

        // Closed: what is left goes to lane 0, whose partition it is, whatever its size; then nil for both.
        await lanes.close()
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["1:5", "1:6"])
        #expect(await lanes.take(lane: 1, upTo: 100) == nil)
        #expect(await lanes.take(lane: 0, upTo: 100) == nil)
    }

    /// Lanes 1 and then 0 waiting in `take`, lane 1 having asked first; their tasks, lane 0's first.
    static func waitingInReverse(
        _ lanes: MessageLanes, lowestUpTo maxMessages: Int
    ) async -> (Task<[IncomingMessage]?, Never>, Task<[IncomingMessage]?, Never>) {
        let laterLane = Task { await lanes.take(lane: 1, upTo: 100) }
        while await lanes.idle != [1] { await Task.yield() }
        let firstLane = Task { await lanes.take(lane: 0, upTo: maxMessages) }
        while await lanes.idle != [0, 1] { await Task.yield() }
        return (firstLane, laterLane)
    }

    @Test("with no lane applying, the lowest-numbered waiting lane takes, whichever asked first")
    func lowestWaitingLaneTakes() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 2)
        let (firstLane, laterLane) = await Self.waitingInReverse(lanes, lowestUpTo: 100)
        await lanes.put(Self.messages(0, 0...2))
        while await lanes.idle.count == 2 { await Task.yield() }
        // Lane 1 waits on: lane 0 is applying, and nothing is there for it.
        #expect(await lanes.idle == [1])
        await lanes.close()
        #expect(Self.taken(await firstLane.value) == ["0:0", "0:1", "0:2"])
        #expect(await laterLane.value == nil)
    }

    @Test("a lane that waited while none applied looks again once the lowest has taken, and takes a backlog left for it")
    func waitingLaneTakesWhatIsLeft() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 2)
        let (firstLane, laterLane) = await Self.waitingInReverse(lanes, lowestUpTo: 3)
        await lanes.put(Self.messages(0, 0...2) + Self.messages(1, 0...2))
        // Bounded, so that a lane left waiting fails the test instead of hanging it.
        for _ in 0..<10_000 where await !lanes.idle.isEmpty { await Task.yield() }
        #expect(await lanes.idle.isEmpty)
        await lanes.close()
        #expect(Self.taken(await firstLane.value) == ["0:0", "0:1", "0:2"])
        #expect(Self.taken(await laterLane.value) == ["1:0", "1:1", "1:2"])
    }

    @Test("the same partition number of another topic is another partition")
    func partitionsAreTopicsPartitions() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 2)
        await lanes.put(Self.messages(0, 0...0))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["0:0"])
        await lanes.put(Self.messages(0, 1...2) + Self.messages(0, 0...1, topic: "caretide.scores"))
        let other = try #require(await lanes.take(lane: 1, upTo: 100))
        #expect(other.map(\.topic) == ["caretide.scores", "caretide.scores"])
    }

    @Test("after a lane's batch failed and the queue closed, what follows its partitions is taken by nobody")
    func failedLaneKeepsItsPartitions() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 1)
        await lanes.put(Self.messages(0, 0...1))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 1)) == ["0:0"])
        await lanes.put(Self.messages(1, 0...0))
        // Lane 0's batch fails: it closes the queue and never takes again.
        await lanes.close()
        #expect(Self.taken(await lanes.take(lane: 1, upTo: 100)) == ["1:0"])
        #expect(await lanes.take(lane: 1, upTo: 100) == nil)
    }

    /// Lane 0's next batch, asked for in a task, and whether it has it.
    final class NextBatch: Sendable {
        private let returned = Atomic<Bool>(false)

        func take(from lanes: MessageLanes) -> Task<[IncomingMessage]?, Never> {
            Task {
                let batch = await lanes.take(lane: 0, upTo: 100)
                self.returned.store(true, ordering: .releasing)
                return batch
            }
        }

        /// Whether the lane has its batch, after yielding until it has or a bound is reached (so that a lane left
        /// waiting fails the test instead of hanging it).
        func hasReturned() async -> Bool {
            for _ in 0..<10_000 where !returned.load(ordering: .acquiring) { await Task.yield() }
            return returned.load(ordering: .acquiring)
        }
    }

    /// Lanes with an hour's window (so it never passes during a test) whose first batch, `offsets` of partition 0, is
    /// taken: it goes at once, whatever its size, the queue having been quiet.
    static func windowedLanes(busyBatch: Int, firstBatch offsets: ClosedRange<Int64>) async -> MessageLanes {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 5, batchWindow: .seconds(3_600), busyBatch: busyBatch)
        await lanes.put(messages(0, offsets))
        #expect(taken(await lanes.take(lane: 0, upTo: 100)) == offsets.map { "0:\($0)" })
        return lanes
    }

    /// Lane 0 asks for its next batch, then `offsets` of partition 0 arrive.
    static func nextBatch(of lanes: MessageLanes, arriving offsets: ClosedRange<Int64>) async -> (NextBatch, Task<[IncomingMessage]?, Never>) {
        let next = NextBatch()
        let task = next.take(from: lanes)
        await lanes.put(messages(0, offsets))
        return (next, task)
    }

    @Test("with a batch window, the first batch after a quiet spell goes at once, a small one soon after it waits, a backlog does not")
    func smallBatchWaitsOutTheWindow() async throws {
        let lanes = await Self.windowedLanes(busyBatch: 1, firstBatch: 0...1)
        let (next, task) = await Self.nextBatch(of: lanes, arriving: 2...3)
        #expect(await !next.hasReturned())
        #expect(await lanes.idle == [0])

        // Five waiting: a backlog, handed out at once with what waited before it.
        await lanes.put(Self.messages(0, 4...6))
        #expect(await next.hasReturned())
        #expect(Self.taken(await task.value) == (2...6).map { "0:\($0)" })
    }

    @Test("closing the queue hands out what waits for the window at once")
    func closeEndsTheWindow() async throws {
        let lanes = await Self.windowedLanes(busyBatch: 1, firstBatch: 0...0)
        let (next, task) = await Self.nextBatch(of: lanes, arriving: 1...1)
        #expect(await !next.hasReturned())
        await lanes.close()
        #expect(await next.hasReturned())
        #expect(Self.taken(await task.value) == ["0:1"])
        #expect(await lanes.take(lane: 0, upTo: 100) == nil)
    }

    @Test("after a batch under the busy size, the next small batch goes at once: a light load pays no window")
    func lightLoadPaysNoWindow() async throws {
        let lanes = await Self.windowedLanes(busyBatch: 3, firstBatch: 0...1)
        let (second, secondTask) = await Self.nextBatch(of: lanes, arriving: 2...4)
        #expect(await second.hasReturned())
        #expect(Self.taken(await secondTask.value) == ["0:2", "0:3", "0:4"])
        // Three: the busy size, so the window holds the next small batch.
        let (next, task) = await Self.nextBatch(of: lanes, arriving: 5...5)
        #expect(await !next.hasReturned())
        await lanes.close()
        #expect(Self.taken(await task.value) == ["0:5"])
    }

    @Test(
        "a small batch goes once the window since the last batch has passed, with no new message to wake the lane",
        .timeLimit(.minutes(1)))
    func windowPasses() async throws {
        let lanes = MessageLanes(capacity: 1_000, sharingThreshold: 5, batchWindow: .milliseconds(20), busyBatch: 1)
        await lanes.put(Self.messages(0, 0...0))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["0:0"])
        await lanes.put(Self.messages(0, 1...2))
        #expect(Self.taken(await lanes.take(lane: 0, upTo: 100)) == ["0:1", "0:2"])
    }

    @Test(
        "lanes taking side by side: every message once, each partition in order and in one lane at a time",
        arguments: [Duration.zero, .milliseconds(1)])
    func concurrentLanesKeepOrder(batchWindow: Duration) async throws {
        let recorder = Recorder()
        let lanes = MessageLanes(capacity: 300, sharingThreshold: 8, batchWindow: batchWindow, busyBatch: 2)
        var generator = SystemRandomNumberGenerator()
        let partitions: [(String, Int32)] = (0..<12).map { (["caretide.measurements", "caretide.scores"][$0 % 2], Int32($0 / 2)) }
        var next: [Int: Int64] = [:]
        var sent: [IncomingMessage] = []
        for _ in 0..<3_000 {
            let index = Int.random(in: 0..<partitions.count, using: &generator)
            let offset = next[index, default: 0]
            next[index] = offset + 1
            sent.append(IncomingMessage(topic: partitions[index].0, partition: partitions[index].1, offset: offset, value: []))
        }
        let chunks = stride(from: 0, to: sent.count, by: 37).map { Array(sent[$0..<min($0 + 37, sent.count)]) }
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<3 {
                group.addTask {
                    while let batch = await lanes.take(lane: lane, upTo: 50) {
                        let keys = Set(batch.map { "\($0.topic)/\($0.partition)" })
                        recorder.state.withLock { state in
                            for key in keys {
                                if state.applying[key, default: lane] != lane { state.overlaps += 1 }
                                state.applying[key] = lane
                            }
                            for message in batch { state.applied["\(message.topic)/\(message.partition)", default: []].append(message.offset) }
                        }
                        for _ in 0..<Int.random(in: 0...3) { await Task.yield() }
                        recorder.state.withLock { state in for key in keys { state.applying[key] = nil } }
                    }
                }
            }
            for chunk in chunks {
                await lanes.put(chunk)
                await Task.yield()
            }
            await lanes.close()
        }
        let final = recorder.state.withLock { $0 }
        #expect(final.overlaps == 0)
        #expect(final.applied.values.reduce(0) { $0 + $1.count } == sent.count)
        for (index, partition) in partitions.enumerated() {
            #expect(final.applied["\(partition.0)/\(partition.1)", default: []] == Array(0..<next[index, default: 0]))
        }
    }

    /// What the lanes of `concurrentLanesKeepOrder` applied, and which partitions each was applying.
    final class Recorder: Sendable {
        struct State {
            var applying: [String: Int] = [:]
            var applied: [String: [Int64]] = [:]
            var overlaps = 0
        }
        let state = Mutex(State())
    }
}
