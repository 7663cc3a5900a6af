import CaretideKafka

/// A bounded queue of messages between the consumer's poll loop and one lane worker.
///
/// The poll loop puts each partition's messages on the same lane, so a lane keeps their order; a worker takes
/// whatever has gathered since its last transaction. When the lane is full, `put` waits: a slow database slows the
/// polling instead of filling memory.
actor MessageLane {
    private var buffer: [IncomingMessage] = []
    private var closed = false
    private var taker: CheckedContinuation<Void, Never>?
    private var putters: [CheckedContinuation<Void, Never>] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends messages, waiting while the lane is full. After `close()` the messages are dropped: nothing takes
    /// them, and their offsets are never committed, so they are redelivered.
    func put(_ messages: [IncomingMessage]) async {
        while buffer.count >= capacity, !closed {
            await withCheckedContinuation { putters.append($0) }
        }
        guard !closed else { return }
        buffer += messages
        taker?.resume()
        taker = nil
    }

    /// Up to `maxMessages` of the oldest messages, waiting for the first; nil once the lane is closed and empty.
    /// One taker at a time.
    func take(upTo maxMessages: Int) async -> [IncomingMessage]? {
        while buffer.isEmpty {
            if closed { return nil }
            await withCheckedContinuation { taker = $0 }
        }
        let count = min(maxMessages, buffer.count)
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        let waiting = putters
        putters = []
        for putter in waiting { putter.resume() }
        return taken
    }

    /// No more messages will come: `take` returns what is left, then nil; waiting `put`s return.
    func close() {
        closed = true
        taker?.resume()
        taker = nil
        let waiting = putters
        putters = []
        for putter in waiting { putter.resume() }
    }
}
