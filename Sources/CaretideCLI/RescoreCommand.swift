import ArgumentParser
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import Foundation
import ScoringService

/// `caretide rescore --since <date>`: which patients' assessments would change under the current rule set.
struct RescoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rescore",
        abstract: "Recompute standing assessments with the current rules and report which patients' categories change.",
        discussion: """
            Reads scoring-service's assessments made since --since from DATABASE_URL, recomputes each from its stored inputs,
            and lists every change of category or severity with the patient id. Nothing is written unless --apply is given:
            then each change becomes a new assessment that supersedes the old one and is published, so alerts follow.
            Applying requires a new RuleSetVersion, so that every assessment says which rules produced it.
            """)

    @Option(help: "Assessments made on or after this date (YYYY-MM-DD, UTC, or an RFC 3339 timestamp).") var since: String
    @Flag(help: "Store and publish the new assessments.") var apply = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let logger = CommandLogging.logger("caretide.rescore")
        guard let start = Timestamp.parse(since) ?? Timestamp.parse(since + "T00:00:00Z") else {
            throw ValidationError("--since must be a date such as 2026-11-01 or 2026-11-01T00:00:00Z")
        }
        let configuration = try DatabaseURL.fromEnvironment()
        let database = Database(configuration: configuration, schema: "scoring", logger: logger)
        let report = try await database.whileRunning { try await Rescorer.rescore(database: database, since: start, apply: apply, logger: logger) }
        if json {
            Console.write(try CaretideJSON.encodeToString(report) + "\n")
            return
        }
        var lines = ["rule set \(report.ruleSetVersion); \(report.checked) standing assessment(s) since \(Timestamp.format(start))"]
        for change in report.changed {
            lines.append(
                "  patient \(change.patientId)  \(change.kind) \(change.subjectId): \(change.fromCategory) → \(change.toCategory) (\(change.fromSeverity) → \(change.toSeverity); was \(change.fromRuleSet))"
            )
        }
        if !report.unreadable.isEmpty { lines.append("  \(report.unreadable.count) assessment(s) could not be recomputed from their inputs") }
        lines.append(
            "\(report.changed.count) change(s) for \(report.patientsAffected) patient(s)\(report.applied ? ", applied" : "; nothing written (use --apply)")"
        )
        Console.write(lines.joined(separator: "\n") + "\n")
    }
}
