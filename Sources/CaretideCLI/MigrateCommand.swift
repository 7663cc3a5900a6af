import ArgumentParser
import CaretideLocalStack
import CaretideRuntime
import CaretideStore
import DiagnosisService
import Foundation
import IngestService
import NotificationService
import ScoringService

/// `caretide migrate`: applies every service's migrations to DATABASE_URL, the shared layer's (grants, audit,
/// idempotency keys) included, exactly as each service does at start-up.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply the database migrations of every service to DATABASE_URL.")

    func run() async throws {
        let logger = CommandLogging.logger("caretide.migrate")
        let configuration = try DatabaseURL.fromEnvironment()
        for definition in AllServices.definitions {
            let database = Database(configuration: configuration, schema: definition.schema, logger: logger)
            let applied = try await database.whileRunning { try await Migrator(tracks: definition.migrationTracks).migrate(database, logger: logger) }
            print("\(definition.schema): \(applied.isEmpty ? "up to date" : "applied " + applied.joined(separator: ", "))")
        }
    }
}

enum AllServices {
    static var definitions: [ServiceDefinition] {
        [IngestService.definition, ScoringService.definition, NotificationService.definition, DiagnosisService.definition]
    }
}

enum DatabaseURL {
    /// DATABASE_URL, parsed; a clear usage error when it is missing or malformed.
    static func fromEnvironment() throws -> DatabaseConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw ValidationError("DATABASE_URL is missing (e.g. postgres://caretide@127.0.0.1:5432/caretide)")
        }
        do {
            return try DatabaseConfiguration(url: url)
        } catch {
            throw ValidationError("DATABASE_URL \(error.message)")
        }
    }
}
