public import CaretideDomain
public import Foundation

/// The inputs of a Nottingham Prognostic Index (`caretide.npi`): tumour size, histological grade, and either the
/// lymph-node stage or the count of positive nodes.
public struct NPIInputsRecorded: EventPayload {
    public static let eventType = EventType.npiInputsRecorded
    /// Chosen by the client; the same id with a higher revision corrects the inputs.
    public var npiID: UUID
    public var revision: Int
    public var tumourSizeCm: Double
    public var histologicalGrade: Int
    public var lymphNodeStage: Int?
    public var positiveNodes: Int?
    public var diagnosisDate: Date
    /// Who entered the inputs: the patient, or a consultant of their care team on a ward round. Absent in events from
    /// before it was recorded.
    public var recordedBy: RecordedBy?

    public init(
        npiID: UUID, revision: Int = 1, tumourSizeCm: Double, histologicalGrade: Int, lymphNodeStage: Int?, positiveNodes: Int?,
        diagnosisDate: Date, recordedBy: RecordedBy? = nil
    ) {
        self.recordedBy = recordedBy
        self.npiID = npiID
        self.revision = revision
        self.tumourSizeCm = tumourSizeCm
        self.histologicalGrade = histologicalGrade
        self.lymphNodeStage = lymphNodeStage
        self.positiveNodes = positiveNodes
        self.diagnosisDate = diagnosisDate
    }

    enum CodingKeys: String, CodingKey {
        case npiID = "npiId"
        case revision, tumourSizeCm, histologicalGrade, lymphNodeStage, positiveNodes, diagnosisDate, recordedBy
    }
}

/// Who entered a clinical input, by role and id (never a name).
public struct RecordedBy: Codable, Sendable, Equatable {
    /// patient, consultant or service.
    public var role: String
    public var id: String

    public init(role: String, id: String) {
        self.role = role
        self.id = id
    }
}

/// A patient's melanoma risk factors (`caretide.risk-profiles`). Each new revision replaces the previous profile.
public struct MelanomaRiskProfileRecorded: EventPayload {
    public static let eventType = EventType.melanomaRiskProfileRecorded
    public var profileID: UUID
    public var revision: Int
    public var answeredAt: Date
    public var factors: MelanomaRiskInput

    public init(profileID: UUID, revision: Int = 1, answeredAt: Date, factors: MelanomaRiskInput) {
        self.profileID = profileID
        self.revision = revision
        self.answeredAt = answeredAt
        self.factors = factors
    }

    enum CodingKeys: String, CodingKey {
        case profileID = "profileId"
        case revision, answeredAt, factors
    }
}

/// A patient withdrew (reset) a melanoma risk profile (`caretide.risk-profiles`): its assessment is withdrawn and
/// the self-check reminder its category set is cancelled.
/// A Nottingham Prognostic Index entry was deleted: its assessment is withdrawn everywhere.
public struct NPIInputsDeleted: EventPayload {
    public static let eventType = EventType.npiInputsDeleted
    public var npiID: UUID
    public var deletedAt: Date

    public init(npiID: UUID, deletedAt: Date) {
        self.npiID = npiID
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case npiID = "npiId"
        case deletedAt
    }
}

public struct MelanomaRiskProfileWithdrawn: EventPayload {
    public static let eventType = EventType.melanomaRiskProfileWithdrawn
    public var profileID: UUID
    public var withdrawnAt: Date

    public init(profileID: UUID, withdrawnAt: Date) {
        self.profileID = profileID
        self.withdrawnAt = withdrawnAt
    }

    enum CodingKeys: String, CodingKey {
        case profileID = "profileId"
        case withdrawnAt
    }
}

/// One item of an institution's exam report, with the institution's own reference range and comment.
public struct ExamResultLine: Codable, Sendable, Equatable {
    public var code: String
    public var name: String
    public var value: Double
    public var unit: String
    public var referenceLow: Double?
    public var referenceHigh: Double?
    public var criticalLow: Double?
    public var criticalHigh: Double?
    public var comment: String?

    public init(
        code: String, name: String, value: Double, unit: String, referenceLow: Double? = nil, referenceHigh: Double? = nil,
        criticalLow: Double? = nil, criticalHigh: Double? = nil, comment: String? = nil
    ) {
        self.code = code
        self.name = name
        self.value = value
        self.unit = unit
        self.referenceLow = referenceLow
        self.referenceHigh = referenceHigh
        self.criticalLow = criticalLow
        self.criticalHigh = criticalHigh
        self.comment = comment
    }
}

/// An institution uploaded (revision 1) or corrected (higher revision) an exam report (`caretide.exam-results`).
public struct ExamResultRecorded: EventPayload {
    public static let eventType = EventType.examResultRecorded
    /// The institution's own id for the report.
    public var examID: String
    public var institutionID: String
    public var revision: Int
    public var reportedAt: Date
    public var items: [ExamResultLine]
    /// How final the report is (HL7 v2 table 0123, FHIR DiagnosticReport.status); absent in events from before it
    /// was carried, which were final.
    public var status: ExamResultStatus?

    public init(
        examID: String, institutionID: String, revision: Int = 1, reportedAt: Date, items: [ExamResultLine], status: ExamResultStatus? = nil
    ) {
        self.examID = examID
        self.institutionID = institutionID
        self.revision = revision
        self.reportedAt = reportedAt
        self.items = items
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case examID = "examId"
        case institutionID = "institutionId"
        case revision, reportedAt, items, status
    }
}

/// The status of an exam report, as HL7 v2 (OBR-25, table 0123) and FHIR R4 (DiagnosticReport.status) give it. A
/// report retracted as entered in error is not a status here but its own event (`exam-result.entered-in-error`).
public enum ExamResultStatus: String, Codable, Sendable, CaseIterable {
    /// Some or all results are available but not verified (HL7 P, A, R; FHIR registered, partial, preliminary).
    case preliminary
    /// Verified and complete (HL7 F; FHIR final).
    case final
    /// A correction of a report already sent (HL7 C; FHIR corrected, amended, appended).
    case corrected
}

/// An exam report's revision became visible to its patient (ingest-service → `caretide.exam-results`): at once, after
/// the institution's delay, or when a clinician released a held report. `exam-result.recorded` says the result exists;
/// this says the patient may see it.
public struct ExamResultReleased: EventPayload {
    public static let eventType = EventType.examResultReleased
    public var examID: String
    public var institutionID: String
    public var revision: Int
    public var releasedAt: Date
    public var how: ReleaseHow
    /// How many items of the released revision are outside their reference range.
    public var outOfRangeCount: Int?

    public init(examID: String, institutionID: String, revision: Int, releasedAt: Date, how: ReleaseHow, outOfRangeCount: Int? = nil) {
        self.examID = examID
        self.institutionID = institutionID
        self.revision = revision
        self.releasedAt = releasedAt
        self.how = how
        self.outOfRangeCount = outOfRangeCount
    }

    enum CodingKeys: String, CodingKey {
        case examID = "examId"
        case institutionID = "institutionId"
        case revision, releasedAt, how, outOfRangeCount
    }
}

/// How a report came to be released.
public enum ReleaseHow: String, Codable, Sendable, CaseIterable {
    /// The institution's rules release it on arrival.
    case immediately
    /// After the delay the rules set.
    case afterDelay = "after-delay"
    /// A clinician of the institution released it (a held report, or a delayed one early).
    case reviewed
}

/// An exam report was marked entered-in-error (`caretide.exam-results`): nothing downstream may act on it any more.
public struct ExamResultEnteredInError: EventPayload {
    public static let eventType = EventType.examResultEnteredInError
    public var examID: String
    public var institutionID: String
    public var markedAt: Date
    /// True when the patient said the report is not theirs (rather than the institution retracting it): the
    /// institution is told.
    public var disputedByPatient: Bool?

    public init(examID: String, institutionID: String, markedAt: Date, disputedByPatient: Bool? = nil) {
        self.examID = examID
        self.institutionID = institutionID
        self.markedAt = markedAt
        self.disputedByPatient = disputedByPatient
    }

    enum CodingKeys: String, CodingKey {
        case examID = "examId"
        case institutionID = "institutionId"
        case markedAt, disputedByPatient
    }
}
