import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The store against a real PostgreSQL (a private cluster the tests start; a fresh database per test).
@Suite struct StoreTests {
    static let track = MigrationTrack(
        name: "sample",
        migrations: [
            Migration(version: 1, name: "notes", statements: ["CREATE TABLE notes (id uuid PRIMARY KEY, body text NOT NULL)"]),
            Migration(version: 2, name: "notes index", statements: ["CREATE INDEX notes_by_body ON notes (body)"]),
        ])

    func withDatabase<T: Sendable>(schema: String = "sample", _ body: @Sendable (Database, Logger) async throws -> T) async throws -> T {
        let configuration = try await TestPostgres.freshDatabase()
        let logger = TestLogging.logger("store")
        let database = Database(configuration: configuration, schema: schema, logger: logger)
        return try await database.whileRunning { try await body(database, logger) }
    }

    @Test("migrations apply once, in order, and a second run applies nothing")
    func migrationsAreIdempotent() async throws {
        try await withDatabase { database, logger in
            let first = try await Migrator(tracks: [Self.track]).migrate(database, logger: logger)
            #expect(
                first == [
                    "caretide/1 outbox and processed events", "caretide/2 parked messages and outbox rows", "sample/1 notes", "sample/2 notes index",
                ])
            let second = try await Migrator(tracks: [Self.track]).migrate(database, logger: logger)
            #expect(second.isEmpty)
        }
    }

    @Test("concurrent migrators (several replicas starting together) apply each migration exactly once")
    func concurrentMigrations() async throws {
        try await withDatabase { database, logger in
            let applied = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 { group.addTask { try await Migrator(tracks: [Self.track]).migrate(database, logger: logger) } }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(
                applied.sorted() == [
                    "caretide/1 outbox and processed events", "caretide/2 parked messages and outbox rows", "sample/1 notes", "sample/2 notes index",
                ])
        }
    }

    @Test("a failing migration leaves nothing half-applied")
    func failingMigrationRollsBack() async throws {
        let broken = MigrationTrack(
            name: "broken",
            migrations: [
                Migration(version: 1, name: "good", statements: ["CREATE TABLE good (id int)"]),
                Migration(version: 2, name: "bad", statements: ["CREATE TABLE bad (id nonexistent_type)"]),
            ])
        try await withDatabase { database, logger in
            await #expect(throws: (any Error).self) { try await Migrator(tracks: [broken]).migrate(database, logger: logger) }
            let tables = try await database.client.fetchAll(
                "SELECT count(*)::int FROM information_schema.tables WHERE table_schema = 'sample'", as: Int.self, logger: logger)
            #expect(tables == [0])
        }
    }

    @Test("an outbox event commits with its row or not at all, and leaves in order")
    func outboxIsTransactional() async throws {
        try await withDatabase { database, logger in
            try await Migrator(tracks: [Self.track]).migrate(database, logger: logger)
            let codec = EventCodec()
            func envelope(_ systolic: Int) -> EventEnvelope<BloodPressureRecorded> {
                EventEnvelope(
                    producer: "test", patientID: "p1", traceID: nil,
                    payload: BloodPressureRecorded(
                        measurementID: UUID(), systolic: systolic, diastolic: 80, takenAt: Date(), source: .patient))
            }
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await database.transaction { connection in
                    try await connection.query("INSERT INTO notes (id, body) VALUES (\(UUID()), 'lost')", logger: logger)
                    try await Outbox.enqueue([Outbox.Entry(envelope(120), codec: codec)], ordering: .perKey, on: connection, logger: logger)
                    throw Abort()
                }
            }
            #expect(try await Outbox.pendingCount(database, logger: logger) == 0)

            let written = [envelope(121), envelope(122), envelope(123)]
            for event in written {
                try await database.transaction { connection in
                    try await Outbox.enqueue([Outbox.Entry(event, codec: codec)], ordering: .perKey, on: connection, logger: logger)
                }
            }
            let claimed = try await database.transaction { connection in
                let records = try await Outbox.readBatch(limit: 2, on: connection, logger: logger)
                try await Outbox.remove(records, on: connection, logger: logger)
                return records
            }
            #expect(claimed.map(\.eventID) == written.prefix(2).map(\.eventID))
            #expect(claimed.allSatisfy { $0.topic == Topic.measurements.name && $0.key == "p1" && $0.eventType == "blood-pressure.recorded" })
            let decoded = try codec.decode(claimed[0].body)
            #expect(decoded.payload(as: BloodPressureRecorded.self)?.systolic == 121)
            #expect(try await Outbox.pendingCount(database, logger: logger) == 1)

            // The relay's round: the last round's rows deleted by the statement that reads the next batch, which
            // neither returns them nor skips a row behind them.
            let more = [envelope(124), envelope(125)]
            try await database.transaction { connection in
                try await Outbox.enqueue(more.map { try Outbox.Entry($0, codec: codec) }, ordering: .perKey, on: connection, logger: logger)
            }
            try await database.client.withConnection { connection in
                let first = try await Outbox.readBatch(limit: 2, removingFirst: [], on: connection, logger: logger)
                #expect(first.map(\.eventID) == [written[2].eventID, more[0].eventID])
                let next = try await Outbox.readBatch(limit: 2, removingFirst: first.map(\.position), on: connection, logger: logger)
                #expect(next.map(\.eventID) == [more[1].eventID])
                #expect(try await Outbox.pendingCount(database, logger: logger) == 1)
                let none = try await Outbox.readBatch(limit: 2, removingFirst: next.map(\.position), on: connection, logger: logger)
                #expect(none.isEmpty)
            }
            #expect(try await Outbox.pendingCount(database, logger: logger) == 0)
        }
    }

    @Test("only one relay publishes a schema's outbox at a time")
    func singlePublisherPerSchema() async throws {
        try await withDatabase { database, logger in
            try await Migrator(tracks: [Self.track]).migrate(database, logger: logger)
            try await database.transaction { connection in
                let reading = EventEnvelope(
                    producer: "test", patientID: "p1", traceID: nil,
                    payload: BloodPressureRecorded(
                        measurementID: UUID(), systolic: 120, diastolic: 80, takenAt: Date(), source: .patient))
                try await Outbox.enqueue([Outbox.Entry(reading, codec: EventCodec())], ordering: .perKey, on: connection, logger: logger)
            }
            let schema = database.schema
            try await database.client.withConnection { first in
                #expect(try await Outbox.tryToBecomePublisher(schema: schema, on: first, logger: logger))
                try await database.client.withConnection { second in
                    // Held by the first session, and across its transactions: the role is the session's.
                    #expect(try await !Outbox.tryToBecomePublisher(schema: schema, on: second, logger: logger))
                    try await first.query("BEGIN", logger: logger)
                    try await first.query("COMMIT", logger: logger)
                    #expect(try await !Outbox.tryToBecomePublisher(schema: schema, on: second, logger: logger))
                    try await Outbox.stopPublishing(schema: schema, on: first, logger: logger)
                    #expect(try await Outbox.tryToBecomePublisher(schema: schema, on: second, logger: logger))
                    #expect(try await !Outbox.tryToBecomePublisher(schema: schema, on: first, logger: logger))
                    try await Outbox.stopPublishing(schema: schema, on: second, logger: logger)
                }
                // A relay's transaction-level lock, as a replica of the build before takes it, is refused too while a
                // session holds the role, and the other way round.
                #expect(try await Outbox.tryToBecomePublisher(schema: schema, on: first, logger: logger))
                let olderRelay = try await database.transaction { second in
                    try await second.query("SELECT pg_try_advisory_xact_lock(hashtext(\("caretide.outbox." + schema)))", logger: logger)
                        .decode(Bool.self).collectAll().first
                }
                #expect(olderRelay == false)
                try await Outbox.stopPublishing(schema: schema, on: first, logger: logger)
            }
            let pending = try await database.client.withConnection { try await Outbox.readBatch(limit: 10, on: $0, logger: logger).count }
            #expect(pending == 1)
        }
    }

    @Test("a row read column by column gives each column as its type, NULL as nil, and refuses a column too many or of another type")
    func rowReaderReadsColumnsInOrder() async throws {
        try await withDatabase { database, logger in
            let id = UUID()
            let rows = try await database.client.query(
                "SELECT 7::int8, \(id)::uuid, 'text', NULL::text, 2.5::float8, convert_to('body', 'UTF8')", logger: logger
            ).collectAll()
            #expect(rows.count == 1)
            var columns = RowReader(rows[0])
            #expect(try columns.next(Int64.self) == 7)
            #expect(try columns.next(UUID.self) == id)
            #expect(try columns.next(String.self) == "text")
            #expect(try columns.next(String?.self) == nil)
            #expect(try columns.next(Double.self) == 2.5)
            #expect(try columns.next(Data.self) == Data("body".utf8))
            #expect(throws: RowReader.MissingColumn.self) { try columns.next(Int.self) }
            // A text column is no integer, and a NULL no value of a type that cannot be nil.
            var mistyped = RowReader(rows[0])
            _ = try mistyped.next(Int64.self)
            #expect(throws: PostgresDecodingError.self) { try mistyped.next(Int64.self) }
            var null = RowReader(rows[0])
            _ = try (null.next(Int64.self), null.next(UUID.self), null.next(String.self))
            #expect(throws: PostgresDecodingError.self) { try null.next(String.self) }
        }
    }

    @Test("a processed event is claimed once")
    func processedEventsAreClaimedOnce() async throws {
        try await withDatabase { database, logger in
            try await Migrator(tracks: []).migrate(database, logger: logger)
            let (id, other) = (UUID(), UUID())
            let first = try await database.transaction { try await ProcessedEvents.claim([id, id], consumer: "a", on: $0, logger: logger) }
            let again = try await database.transaction { try await ProcessedEvents.claim([other, id], consumer: "a", on: $0, logger: logger) }
            let otherConsumer = try await database.transaction { try await ProcessedEvents.claim([id], consumer: "b", on: $0, logger: logger) }
            #expect(first == [id] && again == [other] && otherConsumer == [id])
        }
    }

    @Test("claims made before the cutoff are forgotten a batch at a time, and only they: a forgotten event is new again")
    func processedEventsAreForgottenPastTheCutoff() async throws {
        try await withDatabase { database, logger in
            try await Migrator(tracks: []).migrate(database, logger: logger)
            let longAgo = Date().addingTimeInterval(-61 * 86_400)
            let old = (0..<4).map { _ in UUID.timeOrdered(at: longAgo) }
            // Ids another producer made: one sorts below every id of the cutoff's millisecond, one above.
            let foreignBelow = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
            let foreignAbove = UUID(uuidString: "ffffffff-0000-4000-8000-000000000001")!
            try await database.client.query(
                """
                INSERT INTO processed_events (consumer, event_id, processed_at)
                SELECT CASE WHEN id = \(old[3]) THEN 'b' ELSE 'a' END, id, \(longAgo)
                FROM unnest(\(old + [foreignBelow, foreignAbove])::uuid[]) AS ids(id)
                """, logger: logger)
            // Made now, and an old event replayed now: both still guard against a second delivery.
            let recent = [UUID.timeOrdered(), UUID.timeOrdered(at: longAgo)]
            _ = try await database.transaction { try await ProcessedEvents.claim(recent, consumer: "a", on: $0, logger: logger) }
            let cutoff = Date().addingTimeInterval(-60 * 86_400)
            var rounds: [Int] = []
            for _ in 0..<4 { rounds.append(try await ProcessedEvents.forget(processedBefore: cutoff, limit: 2, database: database, logger: logger)) }
            #expect(rounds == [2, 2, 1, 0])
            let again = try await database.transaction {
                try await ProcessedEvents.claim([old[0], foreignBelow, foreignAbove] + recent, consumer: "a", on: $0, logger: logger)
            }
            #expect(again == [old[0], foreignBelow])
        }
    }

    @Test("the local cluster (caretide dev's, the tests') runs autovacuum every 5 s: a new table has statistics within seconds")
    func autovacuumLooksEveryFiveSeconds() async throws {
        try await withDatabase { database, logger in
            let naptime = try await database.transaction { connection in
                try await connection.query("SHOW autovacuum_naptime", logger: logger).collect().first?.decode(String.self)
            }
            #expect(naptime == "5s")
        }
    }

    @Test("errors thrown inside a transaction come out unwrapped")
    func transactionErrorsAreUnwrapped() async throws {
        struct Refusal: Error, Equatable {}
        _ = try await withDatabase { database, _ in
            await #expect(throws: Refusal()) { try await database.transaction { _ in throw Refusal() } }
        }
    }

    @Test("a database nobody listens on is reported unreachable within the probe's timeout")
    func unreachableDatabaseIsTransient() async throws {
        let logger = TestLogging.logger("store")
        var configuration = try await TestPostgres.freshDatabase()
        configuration.port = 1  // nothing listens on port 1
        let database = Database(configuration: configuration, schema: "sample", logger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            #expect(await database.isReachable(timeout: .seconds(2)) == false)
        }
    }
}
