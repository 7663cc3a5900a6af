import CaretideRuntime
import CaretideSchemas
import Foundation

/// Exam reports from an HL7 FHIR R4 `Bundle` (type `transaction` or `collection`) of `DiagnosticReport`s and the
/// `Observation`s they list in `result`. Pure: the parsed JSON in, request bodies for `exam-result.request` out, or an
/// `OperationOutcome` issue for each resource or element that cannot be mapped (FHIR R4: Bundle, DiagnosticReport,
/// Observation, OperationOutcome).
///
/// - DiagnosticReport: the exam id is `identifier[0].value` (else `id`); the patient is `subject.identifier.value`,
///   else the id in a `Patient/<id>` reference, else the `identifier` of the bundle's Patient that `subject.reference`
///   names by its fullUrl; reported at `issued`, else `effectiveDateTime`. `status` `entered-in-error` retracts the
///   report; `registered`, `partial`, `preliminary`, `final`, `amended`, `corrected` and `appended` store it (a changed
///   report is its next revision); `cancelled` and `unknown` are refused.
/// - Observation: `code.coding` (the LOINC one if any) gives the code and `display` (else `code.text`) the name;
///   `valueQuantity` the value and unit (UCUM `code`, else `unit`); `referenceRange[0].low/high.value` the range;
///   `note[].text` the comment. Only quantities are taken: an observation without `valueQuantity` is named.
/// - Patient resources say who a report is about; their name, gender and birthDate go to the patient's profile
///   (`Registrations`). Any other resource is named.
enum FHIRResults {
    struct Report: Equatable {
        let examID: String
        /// The body of `PUT …/exam-results/{examId}`; nil for a report entered in error (to retract).
        let body: JSONValue?
        let patientID: String
        /// The bundle entry of the DiagnosticReport, for the answer.
        let entry: Int
    }

    /// One `OperationOutcome.issue`: severity error, an issue type code, what is wrong, and where (FHIRPath).
    struct Issue: Equatable, Error {
        let code: String
        let diagnostics: String
        let expression: String
    }

    static let loinc = "http://loinc.org"
    static let storedStatuses: Set<String> = ["registered", "partial", "preliminary", "final", "amended", "corrected", "appended"]

    static func reports(in bundle: JSONValue) -> Result<[Report], IssueList> {
        guard bundle["resourceType"]?.stringValue == "Bundle" else {
            return .failure(IssueList([Issue(code: "invalid", diagnostics: "the body must be a FHIR Bundle", expression: "Bundle")]))
        }
        guard ["transaction", "collection", "batch"].contains(bundle["type"]?.stringValue ?? "") else {
            return .failure(
                IssueList([
                    Issue(code: "not-supported", diagnostics: "Bundle.type must be transaction, batch or collection", expression: "Bundle.type")
                ]))
        }
        guard case .array(let entries)? = bundle["entry"], !entries.isEmpty else {
            return .failure(IssueList([Issue(code: "required", diagnostics: "the Bundle has no entries", expression: "Bundle.entry")]))
        }
        var issues: [Issue] = []
        // Resources by every name a reference may use: their fullUrl, and ResourceType/id.
        var byReference: [String: (Int, JSONValue)] = [:]
        for (index, entry) in entries.enumerated() {
            guard let resource = entry["resource"], let type = resource["resourceType"]?.stringValue else {
                issues.append(Issue(code: "required", diagnostics: "the entry has no resource", expression: "Bundle.entry[\(index)]"))
                continue
            }
            if let fullUrl = entry["fullUrl"]?.stringValue { byReference[fullUrl] = (index, resource) }
            if let id = resource["id"]?.stringValue { byReference["\(type)/\(id)"] = (index, resource) }
            if !["DiagnosticReport", "Observation", "Patient"].contains(type) {
                issues.append(
                    Issue(
                        code: "not-supported", diagnostics: "\(type) is not taken: only DiagnosticReport, Observation and Patient",
                        expression: "Bundle.entry[\(index)].resource"))
            }
        }
        var reports: [Report] = []
        var used: Set<Int> = []
        for (index, entry) in entries.enumerated() where entry["resource"]?["resourceType"]?.stringValue == "DiagnosticReport" {
            let report = entry["resource"]!
            let at = "Bundle.entry[\(index)].resource"
            let examID = report["identifier"]?.firstElement?["value"]?.stringValue ?? report["id"]?.stringValue ?? ""
            if !PatientID.isValid(examID) {
                issues.append(
                    Issue(
                        code: "required", diagnostics: "the report needs an identifier (1 to 64 letters, digits or . _ : -)",
                        expression: "\(at).identifier"))
            }
            let patientID = patient(of: report["subject"], in: byReference)
            if !PatientID.isValid(patientID) {
                issues.append(Issue(code: "required", diagnostics: "the report's subject must name the patient's id", expression: "\(at).subject"))
            }
            let status = report["status"]?.stringValue ?? ""
            if status == "entered-in-error" {
                // Its observations go with it: listed, so not named as unlisted.
                for reference in report["result"]?.elements ?? [] {
                    if let target = reference["reference"]?.stringValue, let (observationIndex, _) = byReference[target] {
                        used.insert(observationIndex)
                    }
                }
                reports.append(Report(examID: examID, body: nil, patientID: patientID, entry: index))
                continue
            }
            guard storedStatuses.contains(status) else {
                issues.append(
                    Issue(code: "not-supported", diagnostics: "status \(status.isEmpty ? "(none)" : status) is not taken", expression: "\(at).status")
                )
                continue
            }
            let reported = (report["issued"]?.stringValue ?? report["effectiveDateTime"]?.stringValue).flatMap(Timestamp.parse)
            if reported == nil {
                issues.append(
                    Issue(code: "required", diagnostics: "issued or effectiveDateTime must say when the report was made", expression: "\(at).issued"))
            }
            var items: [JSONValue] = []
            let results = report["result"]?.elements ?? []
            if results.isEmpty { issues.append(Issue(code: "required", diagnostics: "the report lists no result", expression: "\(at).result")) }
            for (number, reference) in results.enumerated() {
                guard let target = reference["reference"]?.stringValue, let (observationIndex, observation) = byReference[target],
                    observation["resourceType"]?.stringValue == "Observation"
                else {
                    issues.append(
                        Issue(
                            code: "not-found", diagnostics: "the result does not name an Observation in this Bundle",
                            expression: "\(at).result[\(number)]"))
                    continue
                }
                used.insert(observationIndex)
                switch item(observation, at: "Bundle.entry[\(observationIndex)].resource") {
                case .success(let item): items.append(item)
                case .failure(let issue): issues.append(issue)
                }
            }
            reports.append(
                Report(
                    examID: examID,
                    body: .object([
                        "patientId": .string(patientID), "reportedAt": .string(reported.map(Timestamp.format) ?? ""), "items": .array(items),
                        "status": .string(Self.status(status)),
                    ]),
                    patientID: patientID, entry: index))
        }
        for (index, entry) in entries.enumerated() where entry["resource"]?["resourceType"]?.stringValue == "Observation" && !used.contains(index) {
            issues.append(
                Issue(
                    code: "not-supported", diagnostics: "an Observation no DiagnosticReport lists is not taken",
                    expression: "Bundle.entry[\(index)].resource"))
        }
        if reports.isEmpty && issues.isEmpty {
            issues.append(Issue(code: "required", diagnostics: "the Bundle holds no DiagnosticReport", expression: "Bundle.entry"))
        }
        return issues.isEmpty ? .success(reports) : .failure(IssueList(issues))
    }

    /// DiagnosticReport.status as Caretide's report status (one of `storedStatuses`).
    static func status(_ fhir: String) -> String {
        switch fhir {
        case "final": "final"
        case "amended", "corrected", "appended": "corrected"
        default: "preliminary"  // registered, partial, preliminary
        }
    }

    struct IssueList: Error, Equatable {
        let issues: [Issue]
        init(_ issues: [Issue]) { self.issues = issues }
    }

    /// The patient's id from a reference: its identifier, a `Patient/<id>` reference, or the identifier of the bundle's
    /// Patient it names.
    static func patient(of subject: JSONValue?, in resources: [String: (Int, JSONValue)]) -> String {
        if let value = subject?["identifier"]?["value"]?.stringValue { return value }
        guard let reference = subject?["reference"]?.stringValue else { return "" }
        if let (_, patient) = resources[reference], patient["resourceType"]?.stringValue == "Patient" { return patientID(of: patient) }
        return reference.hasPrefix("Patient/") ? String(reference.dropFirst("Patient/".count)) : ""
    }

    /// The patient id a Patient resource stands for: its first identifier, else its id.
    static func patientID(of patient: JSONValue) -> String {
        patient["identifier"]?.firstElement?["value"]?.stringValue ?? patient["id"]?.stringValue ?? ""
    }

    private static func item(_ observation: JSONValue, at path: String) -> Result<JSONValue, Issue> {
        let codings = observation["code"]?["coding"]?.elements ?? []
        let coding = codings.first { $0["system"]?.stringValue == loinc } ?? codings.first
        guard let code = coding?["code"]?.stringValue, !code.isEmpty else {
            return .failure(Issue(code: "required", diagnostics: "the observation needs a code", expression: "\(path).code"))
        }
        guard let quantity = observation["valueQuantity"], let value = quantity["value"]?.numberValue else {
            return .failure(
                Issue(code: "not-supported", diagnostics: "only observations with a valueQuantity are taken", expression: "\(path).value"))
        }
        let name = coding?["display"]?.stringValue ?? observation["code"]?["text"]?.stringValue ?? code
        var item: [String: JSONValue] = [
            "code": .string(code), "name": .string(name), "value": .number(value),
            "unit": .string(quantity["code"]?.stringValue ?? quantity["unit"]?.stringValue ?? ""),
        ]
        if let range = observation["referenceRange"]?.firstElement {
            if let low = range["low"]?["value"]?.numberValue { item["referenceLow"] = .number(low) }
            if let high = range["high"]?["value"]?.numberValue { item["referenceHigh"] = .number(high) }
        }
        let notes = (observation["note"]?.elements ?? []).compactMap { $0["text"]?.stringValue }
        if !notes.isEmpty { item["comment"] = .string(String(notes.joined(separator: " ").prefix(2000))) }
        return .success(.object(item))
    }
}

extension JSONValue {
    var firstElement: JSONValue? { elements.first }
}
