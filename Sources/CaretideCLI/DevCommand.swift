import ArgumentParser
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import DiagnosisService
import Foundation
import IngestService
import Logging
import NotificationService
import ScoringService

/// `caretide dev`: the whole pipeline on one machine. The embedded broker unless KAFKA_BROKERS is set, a private
/// PostgreSQL unless DATABASE_URL is set, then the four services as child processes. Once all are ready it writes
/// `<state-dir>/endpoints.json`. Ctrl-C or SIGTERM stops everything and leaves no process behind. Unless `AUTH_*`
/// names an identity provider, the services trust a development key pair kept in the state directory, whose tokens
/// `caretide token` mints.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev", abstract: "Run the whole Caretide stack locally (embedded broker, private PostgreSQL, four services).")

    @Option(help: "Directory for the private PostgreSQL cluster, logs and endpoints.json.") var stateDir = ".caretide"
    @Option(help: "Partitions per topic on the embedded broker.") var partitions = 3
    @Option(help: "Seconds to wait for every service to become ready.") var readyTimeout = 180
    @Option(
        name: .customLong("postgres-setting"),
        help: "A setting of the private PostgreSQL as name=value (repeatable), e.g. shared_preload_libraries=pg_stat_statements.")
    var postgresSettings: [String] = []
    @Option(help: "USDA SR28 files to import as the food table when the database holds none yet (scripts/fetch-food-data fills .food-data).")
    var foodData: String?
    @Option(
        help: """
            An HPO release (hp.obo, phenotype.hpoa; scripts/fetch-hpo-release fills .hpo-data) to import in the background             when diagnosis-service holds none yet, as caretide hpo import does.
            """)
    var hpoData: String?
    @Option(help: "The content pack (information pages, help, tips) to publish at start; pages already published unchanged stay as they are.")
    var content: String?
    @Flag(
        help: """
            Once the stack is up, start a service that exits again (after 1 s, doubling to 30 s while it keeps exiting),             as an orchestrator would, rather than stopping the whole stack (the default, so that tests notice).
            """)
    var restart = false

    func validate() throws {
        for setting in postgresSettings where LocalPostgres.setting(parsing: setting) == nil {
            throw ValidationError("--postgres-setting \(setting): expected name=value")
        }
    }

    func run() async throws {
        let logger = CommandLogging.logger("caretide.dev")
        let signals = SignalWaiter([SIGINT, SIGTERM])
        let environment = ProcessInfo.processInfo.environment
        let stateDirectory = URL(fileURLWithPath: stateDir).standardizedFileURL
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        let endpointsFile = stateDirectory.appendingPathComponent("endpoints.json")
        try? FileManager.default.removeItem(at: endpointsFile)

        var broker: EmbeddedBroker?
        let kafka: String
        if let brokers = environment["KAFKA_BROKERS"], !brokers.isEmpty {
            kafka = brokers
        } else {
            let embedded = try EmbeddedBroker(logger: logger)
            for topic in Topic.allCases { try embedded.createTopic(topic.name, partitions: partitions) }
            broker = embedded
            kafka = embedded.bootstrapServers
            logger.info("embedded broker running", metadata: [LogKey.bootstrap: "\(kafka)"])
        }

        var postgres: LocalPostgres?
        let databaseURL: String
        let databaseForDisplay: String
        if let url = environment["DATABASE_URL"], !url.isEmpty {
            databaseURL = url
            databaseForDisplay = (try? DatabaseURLRedaction.redact(url)) ?? "DATABASE_URL"
        } else {
            let settings = Dictionary(postgresSettings.compactMap(LocalPostgres.setting(parsing:)), uniquingKeysWith: { _, last in last })
            let server = try await LocalPostgres.start(in: stateDirectory, settings: settings, logger: logger)
            postgres = server
            databaseURL = server.configuration.url
            databaseForDisplay = server.configuration.redactedURL
        }

        var developmentEnvironment: [String: String] = [:]
        if !environment.keys.contains(where: { $0.hasPrefix("AUTH_") }) {
            let issuer = try TokenIssuer.development(in: stateDirectory)
            developmentEnvironment = [
                "AUTH_JWKS_FILE": TokenIssuer.jwksFile(in: stateDirectory).path, "AUTH_ISSUER": issuer.issuer, "AUTH_AUDIENCE": issuer.audience,
            ]
            logger.info(
                "services trust the development key; mint tokens with `caretide token`",
                metadata: [
                    LogKey.jwks: "\(TokenIssuer.jwksFile(in: stateDirectory).path)"
                ])
        }

        // Shared reports work locally: one random key for this run, the same in scoring- and notification-service.
        if environment[ShareKey.variable] == nil {
            developmentEnvironment[ShareKey.variable] = (0..<4).map { _ in UUID().uuidString }.joined()
        }

        var startedChildren: [(key: String, process: ServiceProcess, baseURL: String)] = []
        let binaries = ServiceProcess.executableDirectory
        // Each service's output goes to the terminal as before and is kept in logs/<service>.log, so that a service
        // that dies can be named with its last words.
        let logs = stateDirectory.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let services = [
            ("ingest", IngestService.name), ("scoring", ScoringService.name),
            ("notification", NotificationService.name), ("diagnosis", DiagnosisService.name),
        ]
        // Ports first: ingest-service gathers a patient's export from the others (EXPORT_SOURCES).
        let ports = try services.map { _ in try FreePort.find() }
        developmentEnvironment["EXPORT_SOURCES"] =
            environment["EXPORT_SOURCES"] ?? ports.dropFirst().map { "http://127.0.0.1:\($0)" }.joined(separator: " ")
        for ((key, name), port) in zip(services, ports) {
            var childEnvironment = environment
            childEnvironment["DATABASE_URL"] = databaseURL
            childEnvironment["KAFKA_BROKERS"] = kafka
            childEnvironment["HTTP_HOST"] = "127.0.0.1"
            childEnvironment["HTTP_PORT"] = String(port)
            childEnvironment["CARETIDE_EXIT_WITH_PARENT"] = "1"
            childEnvironment.merge(developmentEnvironment) { _, development in development }
            // Imports by event read release files from here only (`scripts/fetch-hpo-release` fills it).
            childEnvironment["HPO_DATA_DIR"] =
                environment["HPO_DATA_DIR"]
                ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".hpo-data").path
            if broker != nil {
                // The embedded broker's client settings, unless the caller chose otherwise.
                childEnvironment.merge(EmbeddedBroker.clientEnvironment) { chosen, _ in chosen }
            }
            let child = ServiceProcess(
                name: name, executable: binaries.appendingPathComponent(name), environment: childEnvironment,
                logPath: logs.appendingPathComponent("\(name).log").path)
            try child.start()
            startedChildren.append((key, child, "http://127.0.0.1:\(port)"))
        }
        let children = startedChildren
        let readyTimeout = self.readyTimeout
        let database = postgres

        func shutDown() async {
            logger.info("stopping services")
            await withTaskGroup(of: Void.self) { group in
                for child in children { group.addTask { await child.process.stop() } }
            }
            if let database { await database.stop() }
            _ = broker  // the embedded broker lives until here
            logger.info("stopped")
        }

        // Wait for readiness, a signal, or a child that dies on the way up.
        let outcome = await withTaskGroup(of: StartOutcome.self) { group in
            group.addTask {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { ready in
                        for child in children {
                            ready.addTask { try await ReadinessProbe.waitUntilReady(child.baseURL, timeout: .seconds(readyTimeout)) }
                        }
                        try await ready.waitForAll()
                    }
                    return .ready
                } catch {
                    return .failed("\(error)")
                }
            }
            group.addTask {
                _ = try? await signals.next()
                return .interrupted
            }
            group.addTask {
                while true {
                    if let dead = children.first(where: { !$0.process.isRunning }) {
                        return .failed(Self.death(of: dead.process))
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                    if Task.isCancelled { return .interrupted }
                }
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }

        switch outcome {
        case .interrupted:
            await shutDown()
            return
        case .failed(let reason):
            logger.error("the stack did not start", metadata: [LogKey.reason: "\(reason)"])
            await shutDown()
            throw ExitCode.failure
        case .ready:
            break
        }
        if let foodData {
            do {
                try await Self.importFoodsIfNone(directory: foodData, databaseURL: databaseURL, logger: logger)
            } catch {
                logger.error("the food table was not imported", metadata: [LogKey.reason: "\(error)"])
                await shutDown()
                throw ExitCode.failure
            }
        }

        if let content {
            do {
                let database = Database(
                    configuration: try DatabaseConfiguration(url: databaseURL), schema: NotificationService.definition.schema, logger: logger)
                let report = try await database.whileRunning {
                    try await ContentPack.importPack(directory: URL(fileURLWithPath: content), database: database, logger: logger)
                }
                logger.info("content pack published", metadata: [LogKey.count: "\(report.published)"])
            } catch {
                logger.error("the content pack was not published", metadata: [LogKey.reason: "\(error)"])
                await shutDown()
                throw ExitCode.failure
            }
        }

        let endpoints = Endpoints(
            kafka: kafka, database: databaseForDisplay, ingest: children[0].baseURL, scoring: children[1].baseURL,
            notification: children[2].baseURL, diagnosis: children[3].baseURL)
        try endpoints.write(to: endpointsFile)
        Console.write(
            """
            Caretide is running (Ctrl-C stops it):
              kafka         \(endpoints.kafka)
              database      \(endpoints.database)
              ingest        \(endpoints.ingest)
              scoring       \(endpoints.scoring)
              notification  \(endpoints.notification)
              diagnosis     \(endpoints.diagnosis)
            endpoints written to \(endpointsFile.path)

            """)

        // Run until a signal, or until a service dies (then stop the rest: a half-running stack misleads).
        let hpoData = self.hpoData
        let stopReason: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                _ = try? await signals.next()
                return nil
            }
            if let hpoData {
                // Diagnosis serves from the start and ranks as soon as the release is in (it looks every 2 s); an import
                // that fails leaves it answering "no ontology is loaded", as it would without one, and the stack up.
                group.addTask {
                    do {
                        try await Self.importOntologyIfNone(directory: hpoData, databaseURL: databaseURL, logger: logger)
                    } catch {
                        logger.error("the HPO release was not imported", metadata: [LogKey.reason: "\(error)"])
                    }
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                    return nil
                }
            }
            let restart = self.restart
            group.addTask {
                // Each service's wait before its next start and when it last started: the wait doubles while it keeps
                // exiting, and starts again from a second once it stayed up a minute.
                var backoff: [String: (delay: Duration, started: ContinuousClock.Instant)] = [:]
                while !Task.isCancelled {
                    if let dead = children.first(where: { !$0.process.isRunning }) {
                        let death = Self.death(of: dead.process)
                        guard restart else { return death }
                        let last = backoff[dead.process.name]
                        let delay = last.map { ContinuousClock.now - $0.started > .seconds(60) ? .seconds(1) : $0.delay } ?? .seconds(1)
                        logger.error(
                            "a service stopped; starting it again",
                            metadata: [LogKey.reason: "\(death)", LogKey.milliseconds: "\(delay.components.seconds * 1000)"])
                        try? await Task.sleep(for: delay)
                        if Task.isCancelled { return nil }
                        do {
                            try dead.process.start()
                        } catch {
                            return "\(death); starting it again failed: \(error)"
                        }
                        backoff[dead.process.name] = (min(delay * 2, .seconds(30)), .now)
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                }
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        try? FileManager.default.removeItem(at: endpointsFile)
        await shutDown()
        if let stopReason {
            logger.error("a service stopped; the stack was shut down", metadata: [LogKey.reason: "\(stopReason)"])
            throw ExitCode.failure
        }
    }

    /// Which service died and how ("scoring-service was killed by SIGSEGV (signal 11)"), once its last lines are
    /// printed: what an operator needs first.
    static func death(of process: ServiceProcess) -> String {
        let lines = process.lastLogLines(20)
        if !lines.isEmpty {
            Console.write("--- the last lines of \(process.name)'s log:\n" + lines.map { "  " + $0 + "\n" }.joined() + "---\n")
        }
        return "\(process.name) \(process.exitDescription ?? "exited")"
    }

    /// A diet module that works out of the box: the food table imported once, the first time the stack starts (ingest
    /// loads it within seconds); a database that already holds a release keeps it.
    static func importFoodsIfNone(directory: String, databaseURL: String, logger: Logger) async throws {
        let database = Database(configuration: try DatabaseConfiguration(url: databaseURL), schema: IngestService.definition.schema, logger: logger)
        let report = try await database.whileRunning { () -> FoodStore.ImportReport? in
            guard try await !FoodStore.hasRelease(database: database, logger: logger) else { return nil }
            let table = try StandardReference.load(directory: URL(fileURLWithPath: directory))
            return try await FoodStore.importTable(table, keep: 3, database: database, logger: logger)
        }
        if let report { logger.info("food table imported", metadata: [LogKey.count: "\(report.foods)"]) }
    }

    /// A diagnosis-service that ranks out of the box: the HPO release imported once, the first time the stack starts, as
    /// `caretide hpo import` would (a minute or two: the ranking module is optimised in debug builds too); a database that
    /// already holds a release keeps it.
    static func importOntologyIfNone(directory: String, databaseURL: String, logger: Logger) async throws {
        let definition = DiagnosisService.definition
        let database = Database(configuration: try DatabaseConfiguration(url: databaseURL), schema: definition.schema, logger: logger)
        try await database.whileRunning {
            guard try await OntologyReleases.newestReleaseID(database, logger: logger) == nil else { return }
            logger.info("importing the HPO release in the background; diagnosis-service ranks once it is in")
            let options = OntologyImportOptions()
            let report = try await OntologyImporter.importFiles(
                kind: .full, ontologyFile: "\(directory)/hp.obo", annotationFile: "\(directory)/phenotype.hpoa", database: database, options: options,
                logger: logger)
            logger.info("HPO release imported", metadata: [LogKey.count: "\(report.diseaseCount)", LogKey.seconds: "\(report.totalSeconds)"])
        }
    }

    enum StartOutcome: Sendable {
        case ready, interrupted
        case failed(String)
    }
}

enum DatabaseURLRedaction {
    /// The URL without its password.
    static func redact(_ url: String) throws -> String {
        guard var components = URLComponents(string: url) else { throw URLError(.badURL) }
        components.password = nil
        return components.string ?? "DATABASE_URL"
    }
}
