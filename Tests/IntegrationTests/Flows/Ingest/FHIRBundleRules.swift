import Foundation

/// The FHIR R4 rules an export's Bundle is checked against, written from the specification (hl7.org/fhir/R4):
/// Bundle.type is required (bundle-type value set); a collection's entries carry a fullUrl, which for a `urn:uuid:`
/// is a UUID equal to the resource's id (bdl-7: fullUrl unique); ids match `[A-Za-z0-9\-\.]{1,64}` (datatypes "id");
/// each resource has its required elements with codes from their required value sets: Observation.status and .code,
/// DiagnosticReport.status and .code, RiskAssessment.status and .subject, Communication.status, Patient.gender; and
/// every `urn:uuid:` reference resolves to an entry of the Bundle; and no string is empty (JSON representation: "a
/// string SHALL NOT be empty", leave the element out instead).
enum FHIRBundleRules {
    static let observationStatus: Set = ["registered", "preliminary", "final", "amended", "corrected", "cancelled", "entered-in-error", "unknown"]
    static let reportStatus: Set = [
        "registered", "partial", "preliminary", "final", "amended", "corrected", "appended", "cancelled", "entered-in-error", "unknown",
    ]
    static let riskStatus: Set = ["registered", "preliminary", "final", "amended", "corrected", "cancelled", "entered-in-error", "unknown"]
    static let communicationStatus: Set = [
        "preparation", "in-progress", "not-done", "on-hold", "stopped", "completed", "entered-in-error", "unknown",
    ]
    static let gender: Set = ["male", "female", "other", "unknown"]
    static let communicationPriority: Set = ["routine", "urgent", "asap", "stat"]

    /// Every broken rule, as "where: what"; none for a valid Bundle.
    static func problems(_ bundle: [String: Any]) -> [String] {
        var problems: [String] = []
        if bundle["resourceType"] as? String != "Bundle" { problems.append("resourceType: must be Bundle") }
        if bundle["type"] as? String != "collection" { problems.append("type: must be collection") }
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        var fullUrls: Set<String> = []
        var references: [(String, String)] = []
        for (index, entry) in entries.enumerated() {
            let at = "entry[\(index)]"
            guard let resource = entry["resource"] as? [String: Any], let type = resource["resourceType"] as? String else {
                problems.append("\(at): no resource")
                continue
            }
            let id = resource["id"] as? String ?? ""
            if id.range(of: #"^[A-Za-z0-9\-\.]{1,64}$"#, options: .regularExpression) == nil { problems.append("\(at).id: not a FHIR id") }
            let fullUrl = entry["fullUrl"] as? String ?? ""
            if fullUrl != "urn:uuid:\(id)" || UUID(uuidString: id) == nil { problems.append("\(at).fullUrl: must be urn:uuid: and the id") }
            if !fullUrls.insert(fullUrl).inserted { problems.append("\(at).fullUrl: not unique") }
            collectReferences(resource, at: at, into: &references)
            problems += emptyStrings(resource, at: at)
            problems += required(type, resource, at: at)
        }
        for (at, reference) in references where reference.hasPrefix("urn:uuid:") && !fullUrls.contains(reference) {
            problems.append("\(at): \(reference) resolves to no entry")
        }
        return problems
    }

    private static func required(_ type: String, _ resource: [String: Any], at: String) -> [String] {
        var problems: [String] = []
        func status(_ allowed: Set<String>) {
            if !allowed.contains(resource["status"] as? String ?? "") { problems.append("\(at).status: missing or not in its value set") }
        }
        func concept(_ key: String) {
            let value = resource[key] as? [String: Any]
            if value?["text"] == nil && (value?["coding"] as? [[String: Any]])?.isEmpty != false { problems.append("\(at).\(key): required") }
        }
        func subject() { if (resource["subject"] as? [String: Any])?["reference"] == nil { problems.append("\(at).subject: required") } }
        switch type {
        case "Patient":
            if let gender = resource["gender"] as? String, !gender.isEmpty, !Self.gender.contains(gender) {
                problems.append("\(at).gender: not in its value set")
            }
        case "Observation":
            status(observationStatus)
            concept("code")
            if resource["valueQuantity"] != nil && resource["component"] != nil {
                // obs-6 allows both, but an Observation here is either one value or a panel of components.
                problems.append("\(at): a value and components")
            }
        case "DiagnosticReport":
            status(reportStatus)
            concept("code")
        case "RiskAssessment":
            status(riskStatus)
            subject()
        case "Communication":
            status(communicationStatus)
            if let priority = resource["priority"] as? String, !communicationPriority.contains(priority) {
                problems.append("\(at).priority: not in its value set")
            }
        default:
            problems.append("\(at): unexpected resource type \(type)")
        }
        return problems
    }

    private static func emptyStrings(_ value: Any, at: String) -> [String] {
        if let string = value as? String { return string.isEmpty ? ["\(at): an empty string"] : [] }
        if let object = value as? [String: Any] { return object.flatMap { emptyStrings($0.value, at: "\(at).\($0.key)") } }
        if let array = value as? [Any] { return array.enumerated().flatMap { emptyStrings($0.element, at: "\(at)[\($0.offset)]") } }
        return []
    }

    private static func collectReferences(_ value: Any, at: String, into references: inout [(String, String)]) {
        if let object = value as? [String: Any] {
            for (key, member) in object {
                if key == "reference", let reference = member as? String { references.append((at, reference)) }
                collectReferences(member, at: "\(at).\(key)", into: &references)
            }
        } else if let array = value as? [Any] {
            for element in array { collectReferences(element, at: at, into: &references) }
        }
    }
}
