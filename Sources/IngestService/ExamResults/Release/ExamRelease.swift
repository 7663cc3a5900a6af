import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// Releases exam reports to their patients under their institution's rules (`ReleasePolicy`): each new revision is
/// decided in the transaction that stores it and, when released at once, announced there with
/// `exam-result.released`; delayed ones are released by `ExamRelease.Job` when due, held ones by a clinician
/// (`POST …/exam-results/{examId}/release`).
enum ExamRelease {
    /// `RecordDefinition.onStored` of exam reports.
    @Sendable static func decide(_ handler: HandlerContext, _ stored: StoredRevision, _ report: ExamResultRecorded) async throws {
        let store = ReleaseStore(handler)
        let decision = ReleasePolicy.decide(
            try await store.rules(institutionID: report.institutionID),
            items: report.items.map { .init(code: $0.code, abnormal: ReleasePolicy.isAbnormal($0)) })
        let now = Date()
        if try await store.decide(recordID: stored.recordID, patientID: stored.patientID, revision: stored.revision, decision: decision, now: now) {
            try await announce(
                ExamKey(institutionID: report.institutionID, examID: report.examID), revision: stored.revision, patientID: stored.patientID,
                how: .immediately,
                outOfRangeCount: report.items.filter(ReleasePolicy.isAbnormal).count, at: now, traceID: stored.traceID, handler: handler)
        }
    }

    /// - Parameter outOfRangeCount: nil to count the stored report's items here.
    static func announce(
        _ exam: ExamKey, revision: Int, patientID: String, how: ReleaseHow, outOfRangeCount: Int? = nil, at now: Date, traceID: String?,
        handler: HandlerContext
    ) async throws {
        let count = if let outOfRangeCount { outOfRangeCount } else { try await ReleaseStore(handler).outOfRangeCount(recordID: exam.subjectID) }
        try await handler.publish(
            EventEnvelope(
                producer: handler.producer, patientID: patientID, traceID: traceID,
                payload: ExamResultReleased(
                    examID: exam.examID, institutionID: exam.institutionID, revision: revision, releasedAt: now, how: how, outOfRangeCount: count)))
    }

    /// Releases delayed reports when their time comes, checking every `interval`.
    static func job(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "delayed exam report release", interval: interval, fullBatch: 100, context: context) {
            try await context.transaction { handler in
                let store = ReleaseStore(handler)
                let now = Date()
                let due = try await store.due(now: now, limit: 100)
                for report in due {
                    try await announce(
                        ExamResultRoutes.key(report.recordID), revision: report.revision, patientID: report.patientID, how: .afterDelay, at: now,
                        traceID: nil,
                        handler: handler)
                    try await store.markReleased(recordID: report.recordID, revision: report.revision, at: now)
                }
                return due.count
            }
        }
    }
}
