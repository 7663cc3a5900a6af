import CaretideIdentity
import Testing

/// The access table of the README, cell by cell: every role against every kind of route, on its own data and on
/// someone else's.
@Suite struct AccessRulesTests {
    static let patient = Identity(subject: "p-1", role: .patient)
    static let staff = Identity(subject: "staff-1", role: .institution, institutionID: "st-mary")
    static let consultant = Identity(subject: "dr-1", role: .consultant)
    static let operatorIdentity = Identity(subject: "ops-1", role: .operator)
    static let bareService = Identity(subject: "lab-feed", role: .service)

    static func service(_ scopes: String...) -> Identity { Identity(subject: "lab-feed", role: .service, scopes: Set(scopes)) }

    @Test("a patient reads, writes and grants only their own data, and nothing of institutions' or consultants'")
    func patient() {
        for operation in [PatientDataOperation.read, .write, .manage] {
            #expect(AccessRules.decide(Self.patient, .patientData(operation), owner: "p-1") == .allowed)
            #expect(AccessRules.decide(Self.patient, .patientData(operation), owner: "p-2") == .refused)
        }
        #expect(AccessRules.decide(Self.patient, .institutionResults, owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.patient, .consultantWorkspace, owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.patient, .clinicalTools, owner: nil) == .refused)
        #expect(AccessRules.decide(Self.patient, .referenceData, owner: nil) == .allowed)
        // The NPI calculator names nobody and stores nothing: the patient's app computes before recording.
        #expect(AccessRules.decide(Self.patient, .calculators, owner: nil) == .allowed)
        // Advice comes from the care team, not from the patient to themselves.
        #expect(AccessRules.decide(Self.patient, .patientData(.advise), owner: "p-1") == .refused)
        // Messages with the care team: in the patient's own threads only.
        #expect(AccessRules.decide(Self.patient, .patientData(.converse), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.patient, .patientData(.converse), owner: "p-2") == .refused)
        #expect(AccessRules.decide(Self.patient, .ownInbox, owner: nil) == .allowed)
    }

    @Test("institution staff write results only under their own institution and read no patient's data")
    func institution() {
        #expect(AccessRules.decide(Self.staff, .institutionResults, owner: "st-mary") == .allowed)
        #expect(AccessRules.decide(Self.staff, .institutionResults, owner: "st-john") == .refused)
        #expect(AccessRules.decide(Self.staff, .institutionResults, owner: nil) == .refused)
        for operation in [PatientDataOperation.read, .write, .manage, .advise, .converse, .record] {
            #expect(AccessRules.decide(Self.staff, .patientData(operation), owner: "staff-1") == .refused)
        }
        #expect(AccessRules.decide(Self.staff, .ownInbox, owner: nil) == .allowed)
        #expect(AccessRules.decide(Identity(subject: "staff-x", role: .institution), .ownInbox, owner: nil) == .refused)
        #expect(AccessRules.decide(Self.staff, .consultantWorkspace, owner: "staff-1") == .refused)
        #expect(AccessRules.decide(Self.staff, .clinicalTools, owner: nil) == .refused)
    }

    @Test("a consultant reads a patient's data only with a grant, never writes it, and owns only their own workspace")
    func consultant() {
        #expect(AccessRules.decide(Self.consultant, .patientData(.read), owner: "p-1") == .allowedWithActiveGrant)
        #expect(AccessRules.decide(Self.consultant, .patientData(.write), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.consultant, .patientData(.manage), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.consultant, .consultantWorkspace, owner: "dr-1") == .allowed)
        #expect(AccessRules.decide(Self.consultant, .consultantWorkspace, owner: "dr-2") == .refused)
        #expect(AccessRules.decide(Self.consultant, .clinicalTools, owner: nil) == .allowed)
        #expect(AccessRules.decide(Self.consultant, .institutionResults, owner: "st-mary") == .refused)
        #expect(AccessRules.decide(Self.consultant, .patientData(.advise), owner: "p-1") == .allowedWithActiveGrant)
        #expect(AccessRules.decide(Self.consultant, .patientData(.converse), owner: "p-1") == .allowedWithActiveGrant)
        // A ward round: an NPI entered by the care team.
        #expect(AccessRules.decide(Self.consultant, .patientData(.record), owner: "p-1") == .allowedWithActiveGrant)
        #expect(AccessRules.decide(Self.consultant, .ownInbox, owner: nil) == .allowed)
    }

    @Test("an operator reads and writes no patient data, not even with their own id in the path")
    func operatorRole() {
        for access in [
            Access.patientData(.read), .patientData(.write), .patientData(.manage), .patientData(.advise), .patientData(.converse),
            .institutionResults, .consultantWorkspace,
            .clinicalTools, .ownInbox,
        ] {
            #expect(AccessRules.decide(Self.operatorIdentity, access, owner: "ops-1") == .refused)
        }
        #expect(AccessRules.decide(Self.operatorIdentity, .referenceData, owner: nil) == .allowed)
        #expect(AccessRules.decide(Self.operatorIdentity, .broadcasts, owner: nil) == .allowed)
        for identity in [Self.patient, Self.staff, Self.consultant, Self.bareService] {
            #expect(AccessRules.decide(identity, .broadcasts, owner: nil) == .refused)
        }
        #expect(AccessRules.decide(Self.service("broadcasts:write"), .broadcasts, owner: nil) == .allowed)
        // Webhooks are the operators' alone: no scope opens them to a service client.
        #expect(AccessRules.decide(Self.operatorIdentity, .deliveryChannels, owner: nil) == .allowed)
        for identity in [
            Self.patient, Self.staff, Self.consultant, Self.bareService, Identity(subject: "lab-feed", role: .service, scopes: Set(ServiceScope.all)),
        ] {
            #expect(AccessRules.decide(identity, .deliveryChannels, owner: nil) == .refused)
        }
    }

    @Test("a consultant may ask for an ontology update check; only an operator decides; nobody else does either")
    func ontologyUpdates() {
        #expect(AccessRules.decide(Self.consultant, .ontologyUpdates(.ask), owner: nil) == .allowed)
        #expect(AccessRules.decide(Self.consultant, .ontologyUpdates(.decide), owner: nil) == .refused)
        #expect(AccessRules.decide(Self.operatorIdentity, .ontologyUpdates(.ask), owner: nil) == .allowed)
        #expect(AccessRules.decide(Self.operatorIdentity, .ontologyUpdates(.decide), owner: nil) == .allowed)
        for identity in [Self.patient, Self.staff, Identity(subject: "x", role: .service, scopes: Set(ServiceScope.all))] {
            for operation in [OntologyUpdateOperation.ask, .decide] {
                #expect(AccessRules.decide(identity, .ontologyUpdates(operation), owner: nil) == .refused)
            }
        }
        #expect(AccessRules.describe(.ontologyUpdates(.decide)) == ["operator"])
    }

    @Test("a service client does exactly what its scopes name")
    func service() {
        for access in [
            Access.patientData(.read), .patientData(.write), .patientData(.manage), .patientData(.advise), .patientData(.converse),
            .institutionResults, .consultantWorkspace,
            .clinicalTools, .ownInbox,
        ] {
            #expect(AccessRules.decide(Self.bareService, access, owner: "x") == .refused)
        }
        #expect(AccessRules.decide(Self.service("patients:read"), .patientData(.read), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.service("patients:read"), .patientData(.write), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.service("patients:write"), .patientData(.write), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.service("patients:write"), .patientData(.record), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.service("patients:read"), .patientData(.record), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.service("patients:write", "patients:read"), .patientData(.manage), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.service("exam-results:write"), .institutionResults, owner: "st-mary") == .allowed)
        #expect(AccessRules.decide(Self.service("diagnosis:rank"), .clinicalTools, owner: nil) == .allowed)
        #expect(AccessRules.decide(Self.service("diagnosis:rank"), .consultantWorkspace, owner: "lab-feed") == .refused)
    }

    @Test("an erasure is asked for by the patient for themselves or by an operator on their behalf, by nobody else")
    func erasure() {
        #expect(AccessRules.decide(Self.patient, .patientData(.erase), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.patient, .patientData(.erase), owner: "p-2") == .refused)
        #expect(AccessRules.decide(Self.operatorIdentity, .patientData(.erase), owner: "p-1") == .allowed)
        // The operator reads none of what they ask to be erased.
        #expect(AccessRules.decide(Self.operatorIdentity, .patientData(.read), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.consultant, .patientData(.erase), owner: "p-1") == .refused)
        #expect(AccessRules.decide(Self.staff, .patientData(.erase), owner: "p-1") == .refused)
        #expect(
            AccessRules.decide(Self.service(ServiceScope.patientsRead, ServiceScope.patientsWrite), .patientData(.erase), owner: "p-1") == .refused)
    }

    @Test("a copy of everything is for the patient alone: not their consultant, not an operator, not a service client")
    func export() {
        #expect(AccessRules.decide(Self.patient, .patientData(.export), owner: "p-1") == .allowed)
        #expect(AccessRules.decide(Self.patient, .patientData(.export), owner: "p-2") == .refused)
        for identity in [Self.consultant, Self.operatorIdentity, Self.staff, Self.service(ServiceScope.patientsRead)] {
            #expect(AccessRules.decide(identity, .patientData(.export), owner: "p-1") == .refused)
        }
    }
}
