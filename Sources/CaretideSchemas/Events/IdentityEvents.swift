public import Foundation

/// A patient granted a consultant access to their data, or changed the grant's expiry (ingest-service →
/// `caretide.care-team`, keyed by patient). Every service that serves patient data keeps a projection of grants.
public struct CareTeamGranted: EventPayload {
    public static let eventType = EventType.careTeamGranted

    public var consultantID: String
    public var grantedAt: Date
    /// When the grant lapses by itself; nil until revoked.
    public var expiresAt: Date?

    public init(consultantID: String, grantedAt: Date, expiresAt: Date?) {
        self.consultantID = consultantID
        self.grantedAt = grantedAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case consultantID = "consultantId"
        case grantedAt, expiresAt
    }
}

/// A patient revoked a consultant's access (ingest-service → `caretide.care-team`, keyed by patient).
public struct CareTeamRevoked: EventPayload {
    public static let eventType = EventType.careTeamRevoked

    public var consultantID: String
    public var revokedAt: Date

    public init(consultantID: String, revokedAt: Date) {
        self.consultantID = consultantID
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case consultantID = "consultantId"
        case revokedAt
    }
}

/// What a caller did with an operation, as the access rules decided (the action of a FHIR AuditEvent).
public enum AuditAction: String, Codable, Sendable, CaseIterable {
    case read, write, consent, use
}

public enum AuditOutcome: String, Codable, Sendable, CaseIterable {
    case allowed, refused
}

/// One access to patient data, or one refused request, recorded by the service that answered it (every service →
/// `caretide.audit`, keyed by patient when one is concerned), modelled on FHIR R4 AuditEvent: who (agent), what
/// (entity: the route and the patient), when, and the outcome. Ids only, never values.
public struct AccessRecorded: EventPayload {
    public static let eventType = EventType.accessRecorded

    public var auditID: UUID
    public var recordedAt: Date
    public var subject: String
    public var role: String
    public var institutionID: String?
    public var action: AuditAction
    /// The HTTP method and the route pattern, e.g. `GET /v1/patients/:patientId/assessments`.
    public var operation: String
    /// The institution or doctor the route names, when it names one instead of a patient.
    public var owner: String?
    public var outcome: AuditOutcome
    public var status: Int
    public var requestID: String

    public init(
        auditID: UUID, recordedAt: Date, subject: String, role: String, institutionID: String?, action: AuditAction, operation: String,
        owner: String?, outcome: AuditOutcome, status: Int, requestID: String
    ) {
        self.auditID = auditID
        self.recordedAt = recordedAt
        self.subject = subject
        self.role = role
        self.institutionID = institutionID
        self.action = action
        self.operation = operation
        self.owner = owner
        self.outcome = outcome
        self.status = status
        self.requestID = requestID
    }

    enum CodingKeys: String, CodingKey {
        case auditID = "auditId"
        case recordedAt, subject, role
        case institutionID = "institutionId"
        case action, operation, owner, outcome, status
        case requestID = "requestId"
    }
}
