import ArgumentParser
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import NotificationService

/// `caretide articles`: the information pages, help and tips notification-service serves.
struct ArticlesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "articles", abstract: "Manage the information pages notification-service serves.", subcommands: [ArticlesImportCommand.self])
}

/// `caretide articles import`: publishes the content pack (`content/<language>/<id>.md`) into DATABASE_URL
/// (notification-service's schema): a new version of each page that is new or changed, nothing for the others.
struct ArticlesImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Publish the content pack's pages that are new or changed (each checked as the publishing route checks it).")

    @Option(help: "The content pack's folder: one folder per language, one Markdown file per page.")
    var directory = "content"
    @Flag(help: "Print the import report as JSON.")
    var json = false

    func run() async throws {
        let logger = CommandLogging.logger("caretide.articles")
        let definition = NotificationService.definition
        let database = Database(configuration: try DatabaseURL.fromEnvironment(), schema: definition.schema, logger: logger)
        let directory = URL(fileURLWithPath: self.directory)
        let report = try await database.whileRunning {
            try await Migrator(tracks: [definition.migrations]).migrate(database, logger: logger)
            return try await ContentPack.importPack(directory: directory, database: database, logger: logger)
        }
        print(
            json
                ? try CaretideJSON.encodeToString(report)
                : "\(report.pages) pages in \(report.languages.joined(separator: ", ")): \(report.published) published, \(report.unchanged) unchanged"
        )
    }
}
