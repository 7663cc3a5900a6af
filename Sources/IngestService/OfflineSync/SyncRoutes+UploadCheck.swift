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
    func check(_ item: JSONValue, index: Int, now: Date, enteredBy identity: Identity?, seen: inout Set<RecordStore.Key>) -> Checked {
        let at = JSONPointer(tokens: ["changes", String(index)])
        let kindName = item["kind"]?.stringValue ?? ""
        let id = item["id"]?.stringValue?.lowercased() ?? ""
        func refused(_ violations: [SchemaViolation]) -> Checked {
            .refused(ChangeResult(index: index, kind: kindName, id: id, status: .refused, violations: violations))
        }
        // The upload's schema has checked the forms of kind, id and updatedAt.
        guard let definition = uploadDefinition(kind: kindName), let updatedAt = item["updatedAt"]?.stringValue.flatMap(Timestamp.parse) else {
            return refused([SchemaViolation(pointer: at, message: "is not a change")])
        }
        var violations: [SchemaViolation] = []
        if updatedAt > now.addingTimeInterval(RecordRoutes.clockSkew) {
            violations.append(SchemaViolation(pointer: at.appending("updatedAt"), message: RecordRoutes.futureMessage))
        }
        if !seen.insert(RecordStore.Key(kind: definition.kind, id: id)).inserted {
            violations.append(
                SchemaViolation(pointer: at.appending("id"), message: "appears more than once in this upload; send one change per record"))
        }
        let deleted = item["deleted"] == .bool(true)
        let record = item["record"]
        if !deleted {
            if let record {
                violations += recordViolations(record, definition: definition, id: id, now: now).map {
                    SchemaViolation(
                        pointer: JSONPointer(tokens: at.tokens + ["record"] + JSONPointer(parsing: $0.pointer).tokens), message: $0.message)
                }
            } else {
                violations.append(SchemaViolation(pointer: at.appending("record"), message: "is required unless deleted is true"))
            }
        }
        guard violations.isEmpty else { return refused(violations) }
        return .accepted(
            UploadedChange(
                index: index, kind: kindName, definition: definition, id: id,
                // NPI inputs carry who entered them, as their PUT's do (added once the request schema has passed).
                change: .init(
                    updatedAt: updatedAt, deleted: deleted,
                    body: deleted ? nil : definition.kind == .npi ? record.map { ClinicalInputRoutes.enteredBy(identity, $0) } : record)))
    }

    /// What a single POST of the record would be told: its schema, its id, the clinical rules and the clock.
    func recordViolations(_ record: JSONValue, definition: RecordDefinition, id: String, now: Date) -> [SchemaViolation] {
        do {
            var violations = try records.violations(definition, body: record, recordID: id, now: now)
            // A measurement or a meal names its id in its body too; NPI inputs and a risk profile take the change's.
            let idField: String? =
                switch definition.kind {
                case .meal: "mealId"
                case .measurement: "measurementId"
                default: nil
                }
            if let idField, let given = record[idField]?.stringValue, given.lowercased() != id {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: [idField]), message: "must equal the change's id"))
            }
            return violations
        } catch let problem as HTTPProblem {
            return problem.violations
        } catch {
            return [SchemaViolation(pointer: .root, message: "cannot be read")]
        }
    }
}
