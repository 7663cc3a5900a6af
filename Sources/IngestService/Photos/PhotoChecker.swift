import CaretideImaging
import CaretideRuntime
import Dispatch

/// Runs ``PhotoInspection`` for uploads: at most `concurrentChecks` photos are decoded at once, on Dispatch's threads
/// rather than the cooperative ones the other requests run on, so a burst of large photos can take neither more
/// memory than that many decodes need (``PhotoSettings``) nor the threads a reading's POST is waiting for.
final class PhotoChecker: Sendable {
    let inspection: PhotoInspection
    private let turns: Slots

    init(settings: PhotoSettings) {
        inspection = PhotoInspection(limits: settings.limits)
        turns = Slots(settings.concurrentChecks)
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
}
