/// What a route touches, declared where the route is registered. `AccessRules.decide` is the one place that says who
/// may do it; the README's access table is written from it.
public enum Access: Sendable, Hashable {
    /// The data of the patient named by the route's `{patientId}`: measurements, clinical inputs, assessments, alerts,
    /// care team, access log.
    case patientData(PatientDataOperation)
    /// An institution's own data under the route's `{institutionId}`: exam reports, release rules, appointment slots
    /// and bookings.
    case institutionResults
    /// A consultant's own workspace under the route's `{doctorId}` (diagnosis saved queries).
    case consultantWorkspace
    /// Clinical decision support that names no patient (a phenotype ranking).
    case clinicalTools
    /// Reference data every authenticated caller may read (the phenotype ontology, its releases, areas).
    case referenceData
    /// The clinical rules applied to values the caller sends (the NPI calculator): nothing stored, nobody's data read,
    /// so every authenticated caller may use them.
    case calculators
    /// The feeds operators run: areas, UV index and air-quality readings.
    case operatorFeeds
    /// The caller's own notification inbox (a patient's, a consultant's, or the institution's of its staff): whose it
    /// is comes from the token, never the path, so nobody can name another's.
    case ownInbox
    /// Health information and activities operators broadcast to patients' inboxes.
    case broadcasts
    /// Where notifications leave Caretide besides the topic: webhooks, their secrets and their delivery records
    /// (operators alone: it is administration, and a delivery record names recipients by id only).
    case deliveryChannels
    /// Asking for the phenotype ontology to be checked for an update (a consultant, or an operator) and deciding the
    /// request (an operator: an import is administration).
    case ontologyUpdates(OntologyUpdateOperation)
    /// A skin photo's file fetched through the signed, short-lived link its `lesion-photo.recorded` event carries (an
    /// outside classifier): the link's signature is checked by the route, the caller's scope here.
    case photoFiles
    /// A report a patient shared with someone outside Caretide (a doctor without an account), opened with the
    /// share's own access code: no token is asked for, and the route checks the code, counts failures, and records
    /// every opening in the patient's list of openings.
    case outsideViewer

    /// Whether an allowed request is audited: everything that reads or writes a patient's data. (Every refused
    /// request is audited, whatever it touches.)
    public var isPatientData: Bool {
        switch self {
        // A consultant's inbox names patients and their findings.
        case .patientData, .institutionResults, .ownInbox, .photoFiles: true
        // An outside viewer has no identity to audit: the route records each opening itself.
        case .consultantWorkspace, .clinicalTools, .referenceData, .calculators, .operatorFeeds, .broadcasts, .deliveryChannels, .ontologyUpdates,
            .outsideViewer:
            false
        }
    }

    /// The path parameter naming whose data it is, if any.
    public var ownerParameter: String? {
        switch self {
        case .patientData, .photoFiles: "patientId"
        case .institutionResults: "institutionId"
        case .consultantWorkspace: "doctorId"
        case .clinicalTools, .referenceData, .calculators, .operatorFeeds, .ownInbox, .broadcasts, .deliveryChannels, .ontologyUpdates,
            .outsideViewer:
            nil
        }
    }
}

public enum OntologyUpdateOperation: String, Sendable, Hashable {
    /// Asking for a check and reading the requests (a consultant reads their own).
    case ask
    /// Approving (the import starts) or refusing a request.
    case decide
}

public enum PatientDataOperation: String, Sendable, Hashable {
    case read, write
    /// Granting and revoking a consultant's access, and reading who accessed the data: the patient alone.
    case manage
    /// Advice from the patient's consultant to the patient's inbox: consultants with an active grant alone.
    case advise
    /// Clinical inputs a clinician may enter too (an NPI on a ward round): the patient, consultants with an active
    /// grant, and service clients with `patients:write`.
    case record
    /// Messages between the patient and their care team: the patient, and consultants with an active grant (no
    /// service, no institution: a conversation is between people).
    case converse
    /// Erasing everything Caretide holds about the patient, and reading how far it went: the patient, or an operator
    /// on their behalf (who reads none of the data).
    case erase
    /// A copy of everything Caretide holds about the patient: the patient alone.
    case export
}

/// The scopes a `service` token (a hospital pipeline) may carry, and what each allows.
public enum ServiceScope {
    /// Reads any patient's data (e.g. a hospital's own record system pulling assessments back).
    public static let patientsRead = "patients:read"
    /// Writes measurements and clinical inputs for any patient (a device or app gateway).
    public static let patientsWrite = "patients:write"
    /// Uploads and retracts exam reports for any institution it is trusted by.
    public static let examResultsWrite = "exam-results:write"
    /// Runs phenotype rankings.
    public static let diagnosisRank = "diagnosis:rank"
    /// Feeds areas, UV index and air-quality readings (an environmental data gateway).
    public static let environmentWrite = "environment:write"
    /// Broadcasts health information to patients' inboxes (a health-promotion system).
    public static let broadcastsWrite = "broadcasts:write"
    /// Fetches skin photos through the signed links of `lesion-photo.recorded` (a hospital's validated classifier).
    public static let photosClassify = "photos:classify"

    public static let all = [patientsRead, patientsWrite, examResultsWrite, diagnosisRank, environmentWrite, broadcastsWrite, photosClassify]
}

/// The outcome of the rules for one caller and one route.
public enum AccessDecision: Sendable, Equatable {
    case allowed
    /// Allowed only while the patient's care-team grant to this consultant is active (checked against the service's
    /// projection of grants by the caller of `decide`).
    case allowedWithActiveGrant
    case refused
}

/// Caretide's access rules, in one place (issue "Identity": section 2):
/// - a patient reads and writes only their own data, and alone grants or revokes access to it;
/// - institution staff write exam reports only under their own institution id;
/// - a consultant reads a patient's data only while that patient's grant is active, and owns their workspace;
/// - an operator runs feeds, imports and administration and reads no patient data (but may ask for a patient's
///   erasure on their behalf);
/// - a `service` client does what its scopes name.
/// Reference data is open to every authenticated caller. Anything not listed is refused.
public enum AccessRules {
    /// - Parameter owner: the value of the route's `ownerParameter` (the patient, institution or doctor id).
    public static func decide(_ identity: Identity, _ access: Access, owner: String?) -> AccessDecision {
        switch (identity.role, access) {
        case (_, .referenceData), (_, .calculators):
            return .allowed
        case (.patient, .patientData(.advise)):
            return .refused
        case (.patient, .patientData):
            return owner == identity.subject ? .allowed : .refused
        case (.operator, .patientData(.erase)):
            return .allowed
        case (.consultant, .patientData(.read)), (.consultant, .patientData(.advise)), (.consultant, .patientData(.converse)),
            (.consultant, .patientData(.record)):
            return .allowedWithActiveGrant
        case (.patient, .ownInbox), (.consultant, .ownInbox):
            return .allowed
        case (.institution, .ownInbox):
            // The institution's inbox, shared by its staff.
            return identity.institutionID == nil ? .refused : .allowed
        case (.service, .patientData(.read)):
            return identity.scopes.contains(ServiceScope.patientsRead) ? .allowed : .refused
        case (.service, .patientData(.write)), (.service, .patientData(.record)):
            return identity.scopes.contains(ServiceScope.patientsWrite) ? .allowed : .refused
        case (.institution, .institutionResults):
            return owner != nil && owner == identity.institutionID ? .allowed : .refused
        case (.service, .institutionResults):
            return identity.scopes.contains(ServiceScope.examResultsWrite) ? .allowed : .refused
        case (.consultant, .consultantWorkspace):
            return owner == identity.subject ? .allowed : .refused
        case (.consultant, .clinicalTools):
            return .allowed
        case (.service, .clinicalTools):
            return identity.scopes.contains(ServiceScope.diagnosisRank) ? .allowed : .refused
        case (.operator, .operatorFeeds):
            return .allowed
        case (.service, .operatorFeeds):
            return identity.scopes.contains(ServiceScope.environmentWrite) ? .allowed : .refused
        case (.operator, .broadcasts):
            return .allowed
        case (.service, .broadcasts):
            return identity.scopes.contains(ServiceScope.broadcastsWrite) ? .allowed : .refused
        case (.service, .photoFiles):
            return identity.scopes.contains(ServiceScope.photosClassify) ? .allowed : .refused
        case (.operator, .deliveryChannels):
            return .allowed
        case (.consultant, .ontologyUpdates(.ask)), (.operator, .ontologyUpdates):
            return .allowed
        case (.consultant, .patientData(.write)), (.consultant, .patientData(.manage)), (.service, .patientData(.manage)),
            (.consultant, .institutionResults), (.patient, .institutionResults), (.operator, _),
            (.patient, .consultantWorkspace), (.institution, .consultantWorkspace), (.service, .consultantWorkspace),
            (.patient, .clinicalTools), (.institution, .clinicalTools), (.institution, .patientData),
            (.patient, .operatorFeeds), (.consultant, .operatorFeeds), (.institution, .operatorFeeds), (.service, .patientData(.advise)),
            (.service, .patientData(.converse)), (.consultant, .patientData(.erase)), (.service, .patientData(.erase)),
            (.consultant, .patientData(.export)), (.service, .patientData(.export)),
            (.service, .ownInbox), (.patient, .broadcasts), (.consultant, .broadcasts), (.institution, .broadcasts),
            (.patient, .deliveryChannels), (.consultant, .deliveryChannels), (.institution, .deliveryChannels), (.service, .deliveryChannels),
            (.patient, .ontologyUpdates), (.institution, .ontologyUpdates), (.service, .ontologyUpdates), (.consultant, .ontologyUpdates(.decide)),
            // The patient and their consultants read photos through their own routes; the links are for classifiers.
            (.patient, .photoFiles), (.consultant, .photoFiles), (.institution, .photoFiles),
            // Reached without a token (`APIRoutes`): a caller with one is no one the share was made for.
            (_, .outsideViewer):
            return .refused
        }
    }

    /// Who may call a route that touches `access`, in words (the OpenAPI document's `x-caretide-access`), read off
    /// `decide` itself so the two cannot disagree.
    public static func describe(_ access: Access) -> [String] {
        if access == .outsideViewer { return ["anyone with the share's access code, without a token"] }
        let names = access.ownerParameter == nil ? (own: nil, other: nil) : (own: "self", other: "someone-else") as (own: String?, other: String?)
        var callers: [String] = []
        for role in Role.allCases where role != .service {
            let identity = Identity(subject: "self", role: role, institutionID: role == .institution ? "self" : nil)
            switch (decide(identity, access, owner: names.own), decide(identity, access, owner: names.other)) {
            case (.allowed, .allowed): callers.append(role.rawValue)
            case (.allowed, _): callers.append("\(role.rawValue): own only")
            case (.allowedWithActiveGrant, _): callers.append("\(role.rawValue): while the patient's care-team grant is active")
            default: break
            }
        }
        for scope in ServiceScope.all
        where decide(Identity(subject: "self", role: .service, scopes: [scope]), access, owner: names.other) == .allowed {
            callers.append("service with scope \(scope)")
        }
        return callers
    }
}
