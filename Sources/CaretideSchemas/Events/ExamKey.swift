/// Which exam report: institution ids and exam ids are only unique together. Its `subjectID`, `institution/exam`, is
/// the subject id of the report's assessments and alerts and the record id of its row in ingest-service; neither id
/// may hold a `/` (both are 1 to 64 letters, digits or `. _ : -`), so the text names one key and the key one text.
public struct ExamKey: Hashable, Sendable {
    public let institutionID: String
    public let examID: String

    public init(institutionID: String, examID: String) {
        self.institutionID = institutionID
        self.examID = examID
    }

    /// The key a subject or record id names, split at its first `/`; nil for a text that names no exam.
    public init?(subjectID: String) {
        guard let slash = subjectID.firstIndex(of: "/") else { return nil }
        self.init(institutionID: String(subjectID[..<slash]), examID: String(subjectID[subjectID.index(after: slash)...]))
    }

    public var subjectID: String { "\(institutionID)/\(examID)" }
}
