import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Offline sync for patient apps (the seed's UpdateTime / IsDelete):
/// - `GET  /v1/patients/{patientId}/changes?cursor=&limit=&device=`: every change to the patient's records after the
///   cursor, in commit order: each record's newest state, or its tombstone. `nextCursor` continues; `hasMore` says
///   whether to ask again now. A cursor from before tombstones that were purged gets a 410 with `resyncRequired`.
/// - `POST /v1/patients/{patientId}/changes`: up to 1,000 measurement and meal changes made offline, in one
///   transaction, with a result per change (`LastWriterWins` decides each).
/// The feed is in `SyncRoutes+Feed.swift`, the upload in `SyncRoutes+Upload.swift`, each change's check before it is
/// applied in `SyncRoutes+UploadCheck.swift`.
struct SyncRoutes: Sendable {
    let records: RecordRoutes
    /// How meal records are resolved against the food table (`MealRoutes`).
    let meals: RecordDefinition

    /// What the feed carries: what a patient's app writes. Exam reports reach patients through their release.
    static let feedKinds = RecordKind.all.filter { $0 != .examResult }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/changes", access: .patientData(.read),
            summary: "Every change to the patient's measurements and clinical inputs after the cursor, in commit order (deletions as tombstones)",
            query: [QueryParameter("device", "The reading device's own id (up to 64 of A-Z a-z 0-9 . _ -): its position lets tombstones go sooner")],
            paged: true
        ) { request, context in
            try await feed(request, context)
        }
        routes.post(
            "v1/patients/:patientId/changes", access: .patientData(.write),
            summary: "Upload up to 1,000 measurement and meal changes made offline; the last writer wins by updatedAt, a deletion wins over updates",
            body: [Upload.schema], bodyLimit: Outbox.maximumEventBytes
        ) { request, context in
            try await upload(request, context)
        }
    }
}
