import CaretideSchemas
import Foundation

/// Where a patient's erasure stands, per service: each Caretide service that keeps data confirms on
/// `caretide.erasure-confirmations` once its part is erased; the request is complete when all have.
struct ErasureProgress: Encodable, Sendable, Equatable {
    /// The services that hold patient data and must each confirm. The list is Caretide's, not configuration: a
    /// deployment runs all four, and an erasure is not complete while one of them still holds data.
    static let services = ["ingest-service", "scoring-service", "notification-service", "diagnosis-service"]

    enum Status: String, Encodable, Sendable {
        case inProgress = "in-progress"
        case completed
    }

    struct Service: Encodable, Sendable, Equatable {
        let service: String
        /// pending, or erased (with `erasedAt`).
        let status: String
        let erasedAt: Date?
    }

    let erasureId: UUID
    let patientId: String
    let requestedBy: ErasureRequester
    let requestedAt: Date
    let status: Status
    let completedAt: Date?
    let services: [Service]

    /// The progress of a request from the confirmations received so far (a service not in `services` is ignored).
    init(erasureID: UUID, patientID: String, requestedBy: ErasureRequester, requestedAt: Date, confirmations: [String: Date]) {
        erasureId = erasureID
        patientId = patientID
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
        services = Self.services.map { name in
            Service(service: name, status: confirmations[name] == nil ? "pending" : "erased", erasedAt: confirmations[name])
        }
        let done = Self.services.compactMap { confirmations[$0] }
        status = done.count == Self.services.count ? .completed : .inProgress
        completedAt = status == .completed ? done.max() : nil
    }
}
