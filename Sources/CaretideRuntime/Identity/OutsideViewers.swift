import CaretideIdentity
import CaretideSchemas
public import CaretideStore
public import Foundation
public import HTTPTypes

/// Who tried to open a patient's outside share, as the patient's access log shows beside the attempt.
public struct OutsideViewer: Encodable, Sendable {
    /// The name the viewer typed (absent when the attempt was refused before it was read).
    public let name: String?
    /// The address the attempt came from (`CaretideRequestContext.remoteAddress`).
    public let address: String

    public init(name: String?, address: String) {
        self.name = name
        self.address = address
    }
}

/// Where the service that serves outside shares keeps who tried to open them. The audit trail names an outside
/// viewer by the share only, so that what a stranger typed never reaches `caretide.audit` and does not outlive the
/// patient's erasure; the access log asks this directory for the name and address of each attempt.
public protocol OutsideViewerDirectory: Sendable {
    /// The viewers of the attempts on `patientID`'s shares whose audit ids are `auditIDs` (an attempt's audit id is the
    /// id under which the directory keeps it).
    func viewers(_ auditIDs: [UUID], patientID: String, session: StoreSession) async throws -> [UUID: OutsideViewer]
}

extension HandlerContext {
    /// Records an outside viewer's attempt to open a share of `patientID`'s in the access trail, in this transaction:
    /// the patient's access log then shows it, allowed when it opened the report and refused otherwise. `attemptID`
    /// becomes the entry's audit id, under which `OutsideViewerDirectory` finds the viewer.
    public func recordOutsideViewerAttempt(
        _ attemptID: UUID, shareID: UUID, patientID: String, method: HTTPRequest.Method, route: String, opened: Bool, status: Int,
        requestID: String
    ) async throws {
        let entry = AuditEntry(
            agent: .outsideViewer(shareID: shareID), access: .outsideViewer, method: method, route: route, patientID: patientID, owner: nil,
            outcome: opened ? .allowed : .refused, status: status, requestID: requestID, auditID: attemptID)
        try await AuditTrail.insert([entry], codec: codec, producer: producer, on: connection, logger: logger)
    }
}
