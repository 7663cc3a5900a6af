public import CaretideKafka
public import CaretideRuntime
import CaretideSchemas
public import CaretideStore
import DiagnosisService
import Foundation
import IngestService
public import Logging
import NotificationService
import ScoringService
import ServiceLifecycle
import Synchronization

/// An embedded broker with Caretide's topics, a fresh database, and any of the services running in-process, each on
/// its own loopback port. `shutdown()` stops them gracefully, as SIGTERM would.
public final class TestStack: Sendable {
    public let broker: EmbeddedBroker
    public let database: DatabaseConfiguration
    public let kafka: KafkaConfiguration
    let running: [RunningService]
    private let stopped = Atomic<Bool>(false)

    public struct RunningService: Sendable {
        public let name: String
        public let baseURL: String
        public let assembly: ServiceAssembly
        let task: Task<Void, any Error>
    }

    /// The embedded broker's client settings (`EmbeddedBroker.clientProperties`), with a faster heartbeat and a
    /// message timeout that fails a stuck test within seconds.
    public static let consumerProperties = EmbeddedBroker.clientProperties.merging(
        ["heartbeat.interval.ms": "500", "message.timeout.ms": "10000"]) { _, test in test }

    /// - Parameter configure: changes each service's configuration before it starts (e.g. a short stall threshold).
    public static func start(
        _ definitions: [ServiceDefinition], partitions: Int = 3, database chosen: DatabaseConfiguration? = nil,
        configure: @Sendable (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> TestStack {
        let broker = try EmbeddedBroker(logger: TestLogging.logger("broker"))
        for topic in Topic.allCases { try broker.createTopic(topic.name, partitions: partitions) }
        let database: DatabaseConfiguration
        if let chosen {
            database = chosen
        } else {
            // psql, which creates it, has no timeout of its own; the first call also starts the tests' cluster.
            database = try await bounded(within: .seconds(300), waitingFor: { "a fresh database" }) { try await TestPostgres.freshDatabase() }
        }
        let kafka = KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: consumerProperties)
        var running: [RunningService] = []
        do {
            for definition in definitions {
                var configuration = ServiceConfiguration(
                    serviceName: definition.name, httpHost: "127.0.0.1", httpPort: 0, database: database, kafka: kafka,
                    auth: try await TestIdentity.shared.configuration(), logLevel: TestLogging.level)
                configure(&configuration)
                let assembly = try await ServiceAssembly(
                    definition: definition, configuration: configuration, logger: TestLogging.logger(definition.name), signals: false)
                let ended = Ended()
                let task = Task {
                    defer { ended.flag.store(true, ordering: .releasing) }
                    try await assembly.group.run()
                }
                let port = try await Self.listening(assembly, name: definition.name, ended: ended, task: task)
                running.append(RunningService(name: definition.name, baseURL: "http://127.0.0.1:\(port)", assembly: assembly, task: task))
            }
        } catch {
            // Nothing half-started outlives a failed start.
            try? await TestStack(broker: broker, database: database, kafka: kafka, running: running).shutdown()
            throw error
        }
        let stack = TestStack(broker: broker, database: database, kafka: kafka, running: running)
        StackRegistry.current?.add(stack)
        do {
            for service in running { try await stack.waitUntilReady(service.baseURL) }
        } catch {
            try? await stack.shutdown()
            throw error
        }
        return stack
    }

    init(broker: EmbeddedBroker, database: DatabaseConfiguration, kafka: KafkaConfiguration, running: [RunningService]) {
        self.broker = broker
        self.database = database
        self.kafka = kafka
        self.running = running
    }

    public func baseURL(_ name: String) -> String { running.first { $0.name == name }!.baseURL }

    /// The API routes a running service registered, with the access each declares.
    public func routes(_ name: String) -> [RouteDescription] { running.first { $0.name == name }!.assembly.routes.routes }

    public var serviceNames: [String] { running.map(\.name) }

    public func assembly(_ name: String) -> ServiceAssembly { running.first { $0.name == name }!.assembly }

    public func waitUntilReady(_ baseURL: String) async throws {
        try await eventually("\(baseURL) ready", timeout: .seconds(60)) {
            (try? await HTTP.get(baseURL + "/readyz", as: .anonymous))?.status == 200
        }
    }

    /// Graceful shutdown of every service, as SIGTERM would do; rethrows a service's failure. Only the first call
    /// does anything.
    /// The service's port once it listens. A service whose group ends first (it failed while starting) is an error
    /// with the group's own, and so is one not listening after two minutes: a start never hangs a test.
    static func listening(_ assembly: ServiceAssembly, name: String, ended: Ended, task: Task<Void, any Error>) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            if let port = assembly.boundPort.value { return port }
            if ended.flag.load(ordering: .acquiring) {
                try await task.value
                throw ServiceDidNotListen(service: name, reason: "its service group ended before the server listened")
            }
            guard ContinuousClock.now < deadline else {
                await assembly.group.triggerGracefulShutdown()
                throw ServiceDidNotListen(service: name, reason: "not listening after two minutes")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    public func shutdown() async throws {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var failure: (any Error)?
        for service in running.reversed() {
            await service.assembly.group.triggerGracefulShutdown()
            // The group cancels its services 30 s into a graceful shutdown; one that still does not end (a wait that
            // ignores cancellation) fails the test naming the service, instead of holding the run.
            let task = service.task
            do {
                try await bounded(within: .seconds(120), waitingFor: { "\(service.name) to stop" }) { try await task.value }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    var isShutDown: Bool { stopped.load(ordering: .acquiring) }

    /// The environment a service started as a process of its own (to be killed, or restarted on another database)
    /// needs to join this stack: its database, broker and consumer settings, the tests' identity provider, a free
    /// port, warnings only, and an end with the test process.
    public func processEnvironment() async throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = database.url
        environment["KAFKA_BROKERS"] = broker.bootstrapServers
        for (key, value) in Self.consumerProperties { environment[KafkaConfiguration.environmentVariable(forProperty: key)] = value }
        environment["HTTP_HOST"] = "127.0.0.1"
        environment["HTTP_PORT"] = "0"
        environment["LOG_LEVEL"] = "warning"
        // A test that fails before it stops its process must not leave the process behind.
        environment["CARETIDE_EXIT_WITH_PARENT"] = "1"
        environment.merge(try await TestIdentity.shared.environment()) { _, test in test }
        return environment
    }

    /// Runs `body` with a connection pool on the test database, outside any service.
    @discardableResult
    public func withDatabase<T: Sendable>(schema: String, _ body: @Sendable (Database, Logger) async throws -> T) async throws -> T {
        let logger = TestLogging.logger("sql")
        let database = Database(configuration: self.database, schema: schema, logger: logger)
        return try await database.whileRunning { try await body(database, logger) }
    }
}

/// Runs the service group of a service a test built itself (outside `TestStack`) while `body` runs, then shuts it down
/// gracefully whatever `body` did: returned, threw (a failed `#require` among them) or was cancelled. Left running, the
/// service would go on serving and retrying beside the tests that come after. Rethrows `body`'s error, else the group's.
public func withRunning(_ assembly: ServiceAssembly, _ body: () async throws -> Void) async throws {
    let running = Task { try await assembly.group.run() }
    do {
        try await body()
    } catch {
        await assembly.group.triggerGracefulShutdown()
        _ = try? await running.value
        throw error
    }
    await assembly.group.triggerGracefulShutdown()
    try await running.value
}

/// Polls `condition` until it holds, or fails with `what` after `timeout` (a generous bound on waiting, never a
/// performance assertion).
public func eventually(_ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw WaitTimedOut(what: what)
}

public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Values appended from concurrent tasks, in the order they arrived.
public final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    public init() {}
    public func append(_ value: Value) { storage.withLock { $0.append(value) } }
    public var values: [Value] { storage.withLock { $0 } }
}

/// Whether a service's group has ended.
final class Ended: Sendable {
    let flag = Atomic<Bool>(false)
}

/// A service of a test stack that never came to listen.
public struct ServiceDidNotListen: Error, CustomStringConvertible {
    public let service: String
    public let reason: String
    public var description: String { "\(service) did not start: \(reason)" }
}
