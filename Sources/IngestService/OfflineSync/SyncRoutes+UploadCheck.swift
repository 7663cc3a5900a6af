import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Each uploaded change checked before anything is applied: its schema, its id, the clinical rules and the clock.
extension SyncRoutes {
    enum Checked {
        case accepted(UploadedChange)
        case refused(ChangeResult)
    }

    /// A change whose every field is acceptable, or its refusal naming each failing field under `/changes/{index}`.
    func check(
        _ change: Upload.Change, index: Int, patientID: String, traceID: String, now: Date, enteredBy identity: Identity?,
        seen: inout Set<RecordStore.Key>
    ) -> Checked {
        let at = JSONPointer(tokens: ["changes", String(index)])
        let id = change.id.lowercased()
        let updatedAt = change.updatedAt
        func refused(_ violations: [SchemaViolation]) -> Checked {
            .refused(ChangeResult(index: index, kind: change.kind, id: id, status: .refused, violations: violations))
        }
        // The upload's schema has checked the kind's name.
        guard let definition = uploadDefinition(kind: change.kind) else { return refused([SchemaViolation(pointer: at, message: "is not a change")]) }
        var violations: [SchemaViolation] = []
        if updatedAt > now.addingTimeInterval(RecordRoutes.clockSkew) {
            violations.append(SchemaViolation(pointer: at.appending("updatedAt"), message: RecordRoutes.futureMessage))
        }
        if !seen.insert(RecordStore.Key(kind: definition.kind, id: id)).inserted {
            violations.append(
                SchemaViolation(pointer: at.appending("id"), message: "appears more than once in this upload; send one change per record"))
        }
        var checked: CheckedRecord?
        if change.deleted != true {
            if let record = change.record {
                switch checkedRecord(record, definition: definition, id: id, now: now, enteredBy: identity) {
                case .success(let record): checked = record
                case .failure(let refusal):
                    violations += refusal.violations.map {
                        SchemaViolation(
                            pointer: JSONPointer(tokens: at.tokens + ["record"] + JSONPointer(parsing: $0.pointer).tokens), message: $0.message)
                    }
                }
            } else {
                violations.append(SchemaViolation(pointer: at.appending("record"), message: "is required unless deleted is true"))
            }
        }
        guard violations.isEmpty else { return refused(violations) }
        return .accepted(
            UploadedChange(
                index: index, kind: change.kind,
                write: RecordWrite(
                    definition: definition, change: .sync(checked, updatedAt: updatedAt), patientID: patientID, recordID: id, traceID: traceID)))
    }

    struct Refusal: Error {
        let violations: [SchemaViolation]
    }

    /// The record as a single PUT of it would be checked (its schema, its id, the clinical rules and the clock) and
    /// decoded, or every failing field.
    func checkedRecord(
        _ record: JSONValue, definition: RecordDefinition, id: String, now: Date, enteredBy identity: Identity?
    ) -> Result<CheckedRecord, Refusal> {
        // A measurement or a meal names its id in its body too (read here, before its schema, so that one answer names
        // every failing field); NPI inputs and a risk profile take the change's.
        var violations: [SchemaViolation] = []
        if let idField = definition.idField, let given = record[idField]?.stringValue, given.lowercased() != id {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: [idField]), message: "must equal the change's id"))
        }
        let schemaViolations = SchemaCatalog.bundled.validateRequest(definition.requestSchema, record)
        guard schemaViolations.isEmpty else { return .failure(Refusal(violations: schemaViolations + violations)) }
        do {
            // NPI inputs carry who entered them, as their PUT's do (added once the request schema has passed).
            let body = definition.kind == .npi ? ClinicalInputRoutes.enteredBy(identity, record) : record
            let checked = try records.checkedRecord(definition, recordID: id, body: body, now: now)
            return violations.isEmpty ? .success(checked) : .failure(Refusal(violations: violations))
        } catch let problem as HTTPProblem {
            return .failure(Refusal(violations: problem.violations + violations))
        } catch {
            return .failure(Refusal(violations: [SchemaViolation(pointer: .root, message: "cannot be read")] + violations))
        }
    }
}
