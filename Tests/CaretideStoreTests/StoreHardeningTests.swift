import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import CaretideStore

/// Bounds on every database wait, outbox order per key, and the private cluster's authentication.
@Suite struct StoreHardeningTests {
    func withDatabase<T: Sendable>(
        statementTimeout: Duration = .seconds(120), _ body: @Sendable (Database, Logger) async throws -> T
    ) async throws -> T {
        var configuration = try await TestPostgres.freshDatabase()
        configuration.statementTimeout = statementTimeout
        let logger = TestLogging.logger("store")
        let database = Database(configuration: configuration, schema: "sample", logger: logger)
        return try await database.whileRunning {
            try await Migrator(tracks: []).migrate(database, logger: logger)
            return try await body(database, logger)
        }
    }

    static func reading(_ patientID: String, _ systolic: Int) -> EventEnvelope<BloodPressureRecorded> {
        EventEnvelope(
            producer: "test", patientID: patientID, traceID: nil,
            payload: BloodPressureRecorded(
                measurementID: UUID(), systolic: systolic, diastolic: 80, takenAt: Date(), source: .patient))
    }

    @Test(
        "two transactions of one key that commit out of sequence order still leave in commit order",
        arguments: [(Outbox.Ordering.perKey, Outbox.Ordering.perKey), (.consumerLane, .exclusive), (.exclusive, .consumerLane)])
    func oneKeyLeavesInCommitOrder(orderings: (first: Outbox.Ordering, second: Outbox.Ordering)) async throws {
        try await withDatabase { database, logger in
            let codec = EventCodec()
            let first = Self.reading("p1", 121)
            let second = Self.reading("p1", 122)
            let committed = Recorder<UUID>()
            let (firstEnqueued, firstEnqueuedSignal) = AsyncStream<Void>.makeStream()
            let (secondStarted, secondStartedSignal) = AsyncStream<Void>.makeStream()
            // The first transaction takes its position first, then waits until the second has started enqueueing
            // before it commits: without the key lock the second would take the next position and commit first.
            async let firstTransaction: Void = database.transaction { connection in
                try await Outbox.enqueue([Outbox.Entry(first, codec: codec)], ordering: orderings.first, on: connection, logger: logger)
                firstEnqueuedSignal.yield()
                for await _ in secondStarted { break }
                try await Task.sleep(for: .milliseconds(500))
                committed.append(first.eventID)
            }
            for await _ in firstEnqueued { break }
            async let secondTransaction: Void = database.transaction { connection in
                secondStartedSignal.yield()
                try await Outbox.enqueue([Outbox.Entry(second, codec: codec)], ordering: orderings.second, on: connection, logger: logger)
                committed.append(second.eventID)
            }
            try await firstTransaction
            try await secondTransaction
            #expect(committed.values == [first.eventID, second.eventID])
            let published = try await database.transaction { connection in
                try await Outbox.readBatch(limit: 10, on: connection, logger: logger).map(\.eventID)
            }
            #expect(published == [first.eventID, second.eventID])
        }
    }

    @Test("another key's transaction does not wait for the lock of the first")
    func otherKeysDoNotWait() async throws {
        try await withDatabase { database, logger in
            let codec = EventCodec()
            let (held, heldSignal) = AsyncStream<Void>.makeStream()
            let (released, releaseSignal) = AsyncStream<Void>.makeStream()
            async let holder: Void = database.transaction { connection in
                try await Outbox.enqueue([Outbox.Entry(Self.reading("p1", 121), codec: codec)], ordering: .perKey, on: connection, logger: logger)
                heldSignal.yield()
                for await _ in released { break }
            }
            for await _ in held { break }
            // Completes while p1's transaction is still open; a wait here would never end (the holder waits on us).
            try await database.transaction { connection in
                try await Outbox.enqueue([Outbox.Entry(Self.reading("p2", 122), codec: codec)], ordering: .perKey, on: connection, logger: logger)
            }
            releaseSignal.yield()
            try await holder
            #expect(try await Outbox.pendingCount(database, logger: logger) == 2)
        }
    }

    @Test("an event too large to publish is refused before anything is stored")
    func oversizedEventIsRefused() throws {
        let huge = EventEnvelope(
            producer: "test", patientID: nil, traceID: nil,
            payload: DiagnosisRequested(requestID: String(repeating: "x", count: Outbox.maximumEventBytes), phenotypes: ["HP:0001250"]))
        #expect(throws: EventTooLarge.self) { try Outbox.Entry(huge, codec: EventCodec()) }
    }

    @Test("a transaction that outlives its timeout is given up as transient, even if it ignores cancellation")
    func transactionTimeout() async throws {
        try await withDatabase { database, logger in
            let error = await #expect(throws: DatabaseTimeout.self) {
                try await database.transaction(timeout: .milliseconds(300)) { connection in
                    try await connection.query("SELECT pg_sleep(3)", logger: logger)
                }
            }
            #expect(error.map(TransientError.isTransient) == true)
        }
        // An operation that ignores cancellation, as a query on a connection whose server vanished would: it ends only
        // when the test lets it, after the deadline has answered, so the order holds however loaded the machine is.
        let finished = Recorder<Bool>()
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        await #expect(throws: DatabaseTimeout.self) {
            try await withDeadline(.milliseconds(100)) {
                await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
                finished.append(true)
            }
        }
        #expect(finished.values.isEmpty)
        while gate.withLock({ $0 }) == nil { await Task.yield() }
        gate.withLock { $0?.resume() }
    }

    @Test("the server cancels a statement that runs past statement_timeout")
    func statementTimeout() async throws {
        try await withDatabase(statementTimeout: .milliseconds(500)) { database, logger in
            let error = await #expect(throws: PSQLError.self) {
                try await database.client.fetchAll("SELECT 1 FROM pg_sleep(5)", as: Int.self, logger: logger)
            }
            #expect(error?.serverInfo?[.sqlState] == "57014")  // query_canceled
        }
    }

    @Test("the private cluster wants a password, and the services' role is no superuser")
    func privateClusterAuthentication() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let logger = TestLogging.logger("store")
        let database = Database(configuration: configuration, schema: "sample", logger: logger)
        let superuser = try await database.whileRunning {
            try await database.client.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user", logger: logger)
                .decode(Bool.self).collectAll()
        }
        #expect(configuration.username == "caretide" && superuser == [false])
        var wrong = configuration
        wrong.password = "not-the-password"
        let intruder = Database(configuration: wrong, schema: "sample", logger: logger)
        #expect(try await intruder.whileRunning { await intruder.isReachable(timeout: .seconds(5)) } == false)
        var none = configuration
        none.password = nil
        none.username = "postgres"
        let anonymous = Database(configuration: none, schema: "sample", logger: logger)
        #expect(try await anonymous.whileRunning { await anonymous.isReachable(timeout: .seconds(5)) } == false)
    }
}
