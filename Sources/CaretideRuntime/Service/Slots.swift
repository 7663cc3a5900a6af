/// A counting semaphore for async callers: at most `count` holders at once, the others served in the order they
/// came. Bounds work that is heavy beside a request (a browser printing a PDF, a photo being decoded).
public actor Slots {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(_ count: Int) {
        precondition(count >= 1, "a slot at least")
        available = count
    }

    /// Waits for a slot; give it back with ``give()``.
    public func take() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func give() {
        if waiting.isEmpty { available += 1 } else { waiting.removeFirst().resume() }
    }
}
