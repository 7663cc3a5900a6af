import CaretideDomain
import CaretideRuntime
import CaretideSchemas
public import CaretideStore
import ClinicalAssessment
public import Foundation
public import Logging
import PostgresNIO

/// Recomputes standing assessments from their stored inputs with the current rule set, and reports every one whose
/// category or severity would change. When a rule changes this shows, before anyone acts on it, which patients are
/// affected (the QRISK2 mapping incident is why). With `apply`, each change is stored as a new assessment that
/// supersedes the old one and is published, so alerts follow.
public enum Rescorer {
    public struct Change: Encodable, Sendable {
        public let patientId: String
        public let kind: String
        public let subjectId: String
        public let assessmentId: UUID
        public let fromCategory: String
        public let toCategory: String
        public let fromSeverity: String
        public let toSeverity: String
        public let fromRuleSet: String
    }

    public struct Report: Encodable, Sendable {
        public let since: Date
        public let ruleSetVersion: String
        public let checked: Int
        public let changed: [Change]
        /// Assessments whose stored inputs no longer decode or no longer pass the rules (listed by id).
        public let unreadable: [UUID]
        public let applied: Bool
        public var patientsAffected: Int { Set(changed.map(\.patientId)).count }

        enum CodingKeys: String, CodingKey { case since, ruleSetVersion, checked, changed, unreadable, applied, patientsAffected }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(since, forKey: .since)
            try container.encode(ruleSetVersion, forKey: .ruleSetVersion)
            try container.encode(checked, forKey: .checked)
            try container.encode(changed, forKey: .changed)
            try container.encode(unreadable, forKey: .unreadable)
            try container.encode(applied, forKey: .applied)
            try container.encode(patientsAffected, forKey: .patientsAffected)
        }
    }

    public struct SameRuleSetChange: Error, CustomStringConvertible {
        public let count: Int
        public var description: String {
            "\(count) assessment(s) would change under the same rule set version \(RuleSetVersion.current): bump RuleSetVersion before applying a rule change"
        }
    }

    public static func rescore(database: Database, since: Date, apply: Bool, logger: Logger) async throws -> Report {
        let rows = try await AssessmentStore(database: database, logger: logger).standing(since: since)
        var changes: [(change: Change, assessment: Assessment, payload: any EventPayload, inputs: JSONValue, sourceEventID: UUID)] = []
        var unreadable: [UUID] = []
        for (id, patient, kind, subject, category, severity, ruleSet, sourceEventID, sourceType, inputs, assessedAt) in rows {
            guard let (fresh, payload, document) = Self.reassessed(sourceType: sourceType, inputs: inputs, assessedAt: assessedAt) else {
                unreadable.append(id)
                continue
            }
            guard Self.changes(category: category, severity: severity, to: fresh) else { continue }
            changes.append(
                (
                    Change(
                        patientId: patient, kind: kind, subjectId: subject, assessmentId: id, fromCategory: category,
                        toCategory: fresh.category.rawValue,
                        fromSeverity: severity, toSeverity: fresh.severity.rawValue, fromRuleSet: ruleSet),
                    fresh, payload, document, sourceEventID
                ))
        }
        if apply {
            let unversioned = Self.unversioned(changes.map(\.change))
            guard unversioned == 0 else { throw SameRuleSetChange(count: unversioned) }
            for (change, assessment, payload, inputs, sourceEventID) in changes {
                try await database.transaction { connection in
                    let store = AssessmentStore(connection: connection, logger: logger)
                    let outcome = try await store.record(
                        assessment, patientID: change.patientId, sourceEventID: sourceEventID, sourceEventType: type(of: payload).eventType,
                        inputs: inputs, replacingSameRevision: true)
                    guard case .recorded(let assessmentID, let supersedes) = outcome else { return }
                    let context = HandlerContext(
                        connection: connection, codec: EventCodec(), producer: ScoringService.name, logger: logger, ordering: .exclusive)
                    try await context.publish([
                        AssessmentPublication.entry(
                            assessmentID: assessmentID, assessment, sourceEventID: sourceEventID, supersedes: supersedes,
                            patientID: change.patientId, traceID: "rescore-\(RuleSetVersion.current)", context: context)
                    ])
                }
            }
        }
        return Report(
            since: since, ruleSetVersion: RuleSetVersion.current, checked: rows.count, changed: changes.map(\.change), unreadable: unreadable,
            applied: apply)
    }

    /// What the current rules make of a stored assessment's inputs (the recorded event's payload), with the payload and
    /// the parsed inputs a new assessment is stored from; nil when they no longer decode or no longer pass the rules,
    /// or when the event is not one the rules assess. Apart from the database so the selection can be read and tested.
    static func reassessed(sourceType: String, inputs: String, assessedAt: Date) -> (Assessment, any EventPayload, JSONValue)? {
        guard let type = EventType(rawValue: sourceType),
            let document = try? CaretideJSON.parse(Array(inputs.utf8)),
            let payload = try? type.decodePayload(from: document),
            let fresh = try? AssessmentEngine.assess(payload, now: assessedAt)
        else { return nil }
        return (fresh, payload, document)
    }

    /// Whether the current rules' `fresh` assessment says something else than a stored one of `category` and
    /// `severity`: only those are reported and replaced; a tip or a value that moved alone is not a change.
    static func changes(category: String, severity: String, to fresh: Assessment) -> Bool {
        fresh.category.rawValue != category || fresh.severity.rawValue != severity
    }

    /// How many changes would be stored under the rule set version of the assessments they replace: a rule changed
    /// without bumping `RuleSetVersion`, which `apply` refuses: one version would then stand for two sets of rules.
    static func unversioned(_ changes: [Change]) -> Int {
        changes.filter { $0.fromRuleSet == RuleSetVersion.current }.count
    }

}
