import CaretideImaging
import Dispatch

/// Runs ``PhotoInspection`` for uploads: at most `concurrentChecks` photos are decoded at once, on Dispatch's threads
/// rather than the cooperative ones the other requests run on, so a burst of large photos can take neither more
/// memory than that many decodes need (``PhotoSettings``) nor the threads a reading's POST is waiting for.
final class PhotoChecker: Sendable {
    let inspection: PhotoInspection
    private let turns: Turns

    init(settings: PhotoSettings) {
        inspection = PhotoInspection(limits: settings.limits)
        turns = Turns(available: settings.concurrentChecks)
    }

    func inspect(_ bytes: [UInt8]) async -> Result<PhotoInspection.Inspected, PhotoInspection.Refusal> {
        await turns.take()
        let inspection = self.inspection
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(PhotoInspection.Refusal) in try inspection.inspect(bytes) })
            }
        }
        await turns.give()
        return result
    }

    /// A counting semaphore for async callers: waiters are served in the order they came.
    actor Turns {
        private var available: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(available: Int) { self.available = available }

        func take() async {
            if available > 0 {
                available -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func give() {
            if waiting.isEmpty { available += 1 } else { waiting.removeFirst().resume() }
        }
    }
}
