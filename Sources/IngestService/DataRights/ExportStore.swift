import CaretideRuntime
import CaretideStore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The SQL of patients' exports: a row per request, assembling until its job stores the JSON document and the FHIR
/// Bundle (or the reason it failed), downloadable until it expires, then deleted (`purgeJob`).
struct ExportStore: ServiceStore {
    let session: StoreSession

    enum Status: String, Encodable, Sendable {
        case assembling, ready, failed
    }

    struct Export: Encodable, Sendable {
        let exportId: UUID
        let status: Status
        let requestedAt: Date
        let readyAt: Date?
        let expiresAt: Date?
        /// Why it failed (a service that did not answer), for the patient to ask again.
        let failure: String?
    }

    func create(patientID: String, at requestedAt: Date) async throws -> Export {
        let id = UUID()
        try await session.query(
            """
            INSERT INTO patient_exports (export_id, patient_id, status, requested_at) VALUES (\(id), \(patientID), 'assembling', \(requestedAt))
            """)
        return Export(exportId: id, status: .assembling, requestedAt: requestedAt, readyAt: nil, expiresAt: nil, failure: nil)
    }

    func finish(_ exportID: UUID, document: [UInt8], bundle: [UInt8], expiresAt: Date) async throws {
        try await session.query(
            """
            UPDATE patient_exports SET status = 'ready', document = \(ByteBuffer(bytes: document)), bundle = \(ByteBuffer(bytes: bundle)), ready_at = now(), expires_at = \(expiresAt)
            WHERE export_id = \(exportID) AND status = 'assembling'
            """)
    }

    func fail(_ exportID: UUID, reason: String) async throws {
        try await session.query(
            """
            UPDATE patient_exports SET status = 'failed', failure = \(reason), expires_at = now() + \(Self.failedKept)::interval
            WHERE export_id = \(exportID) AND status = 'assembling'
            """)
    }

    func find(patientID: String, exportID: UUID) async throws -> Export? {
        try await session.fetchAll(
            """
            SELECT status, requested_at, ready_at, expires_at, failure FROM patient_exports
            WHERE export_id = \(exportID) AND patient_id = \(patientID)
            """, as: (String, Date, Date?, Date?, String?).self
        ).first.map {
            Export(exportId: exportID, status: Status(rawValue: $0.0) ?? .failed, requestedAt: $0.1, readyAt: $0.2, expiresAt: $0.3, failure: $0.4)
        }
    }

    enum File: String, Sendable {
        case document, bundle
    }

    /// A finished export's file, if it has not expired.
    func file(_ file: File, patientID: String, exportID: UUID) async throws -> ByteBuffer? {
        try await session.fetchAll(
            """
            SELECT \(unescaped: file == .document ? "document" : "bundle") FROM patient_exports
            WHERE export_id = \(exportID) AND patient_id = \(patientID) AND status = 'ready' AND expires_at > now()
            """, as: ByteBuffer.self
        ).first
    }

    /// How long a failed request is kept, so the app can read why before asking again.
    static let failedKept = "1 day"
    /// An assembly takes seconds. One still going after this was cut off by a restart of the replica running it: it
    /// cannot resume, since it reads every service with the patient's own token, which Caretide does not keep.
    static let interruptedAfter = "10 minutes"
    static let interrupted = "the export was interrupted (the service restarted while assembling it); ask again"

    /// Marks interrupted assemblies failed, so the patient is told to ask again, and deletes expired exports and
    /// failed requests.
    static func purgeJob(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "export purge", interval: interval, fullBatch: 500, context: context) {
            try await context.session.query(
                """
                UPDATE patient_exports SET status = 'failed', failure = \(interrupted), expires_at = now() + \(failedKept)::interval
                WHERE status = 'assembling' AND requested_at < now() - \(interruptedAfter)::interval
                """)
            return try await context.session.fetchAll(
                """
                WITH gone AS (
                    DELETE FROM patient_exports WHERE ctid IN (SELECT ctid FROM patient_exports WHERE expires_at < now() LIMIT 500)
                    RETURNING 1)
                SELECT count(*)::int FROM gone
                """, as: Int.self
            ).first ?? 0
        }
    }
}
