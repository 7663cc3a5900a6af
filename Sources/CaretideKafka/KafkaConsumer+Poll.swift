internal import CRdKafka

extension KafkaConsumer {
    /// The next message, or nil if none arrived within `timeout`. A loop that must notice a stop request between
    /// messages (graceful shutdown that still finishes the message in hand) polls with this instead of iterating.
    public func poll(timeout: Duration) async throws -> IncomingMessage? {
        try await withThrowingTaskGroup(of: IncomingMessage?.self) { group in
            group.addTask { try await self.runtime.nextMessage() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            // Wait for both children: a poll cancelled by the timer may still hand over a message it had already
            // fetched, and that message must be returned, not dropped.
            var received: IncomingMessage?
            while let result = try await group.next() {
                group.cancelAll()
                if let result { received = result }
            }
            return received
        }
    }

    /// The next message and whatever else is already fetched, up to `maxMessages`; empty if nothing arrived within
    /// `timeout`. Lets a consumer apply many messages in one database transaction.
    public func pollBatch(maxMessages: Int, timeout: Duration) async throws -> [IncomingMessage] {
        // Messages already fetched need no poll (and no timer task): the usual case under load.
        let ready = runtime.takeBuffered(upTo: maxMessages)
        guard ready.isEmpty else { return ready }
        guard let first = try await poll(timeout: timeout) else { return [] }
        return [first] + runtime.takeBuffered(upTo: maxMessages - 1)
    }
}
