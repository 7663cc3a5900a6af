import Dispatch
import Foundation
import Synchronization

/// Collects Unix signals, replacing their default action (which would end the process before it could stop its
/// children). `next()` may be called from several phases in turn: a cancelled wait loses no signal.
///
/// `@unchecked Sendable`: the sources are set once in `init` and only kept alive here; dispatch sources are thread-safe.
final class SignalWaiter: @unchecked Sendable {
    private final class Inbox: Sendable {
        let received = Mutex<[Int32]>([])
    }
    private let inbox = Inbox()
    private let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        let inbox = self.inbox
        for number in numbers {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { inbox.received.withLock { $0.append(number) } }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// The next signal received; throws CancellationError if the waiting task is cancelled first.
    func next() async throws -> Int32 {
        while true {
            if let signal = inbox.received.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return signal }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
