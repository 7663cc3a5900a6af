import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// An erasure request's progress: complete when, and only when, every service that holds patient data confirmed.
@Suite struct ErasureProgressTests {
    static let requestedAt = Date(timeIntervalSince1970: 1_795_000_000)

    static func progress(_ confirmations: [String: Date]) -> ErasureProgress {
        ErasureProgress(erasureID: UUID(), patientID: "p-1", requestedBy: .patient, requestedAt: requestedAt, confirmations: confirmations)
    }

    @Test("each service pending until it confirms; complete at the last confirmation, not before")
    func completion() {
        let none = Self.progress([:])
        #expect(none.status == .inProgress && none.completedAt == nil && none.services.allSatisfy { $0.status == "pending" })
        var confirmations: [String: Date] = [:]
        for (index, service) in ErasureProgress.services.enumerated() {
            let progress = Self.progress(confirmations)
            #expect(progress.status == .inProgress)
            confirmations[service] = Self.requestedAt.addingTimeInterval(Double(10 - index))
        }
        let done = Self.progress(confirmations)
        #expect(done.status == .completed)
        // Completed when the last confirmation was made, whatever order they came in.
        #expect(done.completedAt == Self.requestedAt.addingTimeInterval(10))
        #expect(done.services.map(\.service) == ErasureProgress.services && done.services.allSatisfy { $0.status == "erased" })
    }

    @Test("a confirmation from a service that is not one of Caretide's does not complete a request")
    func strangers() {
        var confirmations = Dictionary(uniqueKeysWithValues: ErasureProgress.services.dropLast().map { ($0, Self.requestedAt) })
        confirmations["someone-else"] = Self.requestedAt
        #expect(Self.progress(confirmations).status == .inProgress)
        #expect(Self.progress(confirmations).services.count == ErasureProgress.services.count)
    }
}
