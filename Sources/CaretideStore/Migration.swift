public import Logging
import PostgresNIO

/// One versioned change to a service's schema. Statements are static SQL written in this repository; they run in
/// order, inside the one transaction that applies all pending migrations.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }

    /// One statement giving `columns` of `table` the statistics target `target`: how many rows ANALYZE samples (300
    /// per unit of the largest target among a table's columns) and how long its lists of common values are.
    /// Shipped migrations use it, so what it writes must never change.
    public static func statisticsTarget(_ target: Int, table: String, columns: [String]) -> String {
        "ALTER TABLE \(table) " + columns.map { "ALTER COLUMN \($0) SET STATISTICS \(target)" }.joined(separator: ", ")
    }
}

/// A named, ordered list of migrations. The store's own tables (outbox, processed events) form the track "caretide";
/// each service adds its own track, so versions never collide.
public struct MigrationTrack: Sendable {
    public let name: String
    public let migrations: [Migration]

    public init(name: String, migrations: [Migration]) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "migration versions must be unique in a track")
        self.name = name
        self.migrations = migrations.sorted { $0.version < $1.version }
    }
}

/// Applies pending migrations to a service's schema. Safe to run from several processes at once: an advisory lock
/// per schema serialises them, and everything happens in one transaction, so a failed run leaves nothing half-applied.
public struct Migrator: Sendable {
    public let tracks: [MigrationTrack]

    public init(tracks: [MigrationTrack]) {
        self.tracks = [StoreMigrations.track] + tracks
    }

    /// Returns the migrations applied by this run, as "track/version name".
    @discardableResult
    public func migrate(_ database: Database, logger: Logger) async throws -> [String] {
        let schema = database.schema
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("caretide.migrate." + schema)))", logger: logger)
            // The schema name is a fixed identifier checked by `Database.init` (letters and underscores only).
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    track text NOT NULL, version integer NOT NULL, name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (track, version))
                """, logger: logger)
            var applied: Set<String> = []
            for try await (track, version) in try await connection.query("SELECT track, version FROM schema_migrations", logger: logger)
                .decode((String, Int).self)
            {
                applied.insert("\(track)/\(version)")
            }
            var appliedNow: [String] = []
            for track in tracks {
                for migration in track.migrations where !applied.contains("\(track.name)/\(migration.version)") {
                    for statement in migration.statements {
                        // Migration SQL is static text from this repository, never built from input.
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO schema_migrations (track, version, name) VALUES (\(track.name), \(migration.version), \(migration.name))",
                        logger: logger)
                    appliedNow.append("\(track.name)/\(migration.version) \(migration.name)")
                    logger.info(
                        "applied migration",
                        metadata: [StoreLogKey.schema: "\(schema)", StoreLogKey.track: "\(track.name)", StoreLogKey.version: "\(migration.version)"])
                }
            }
            return appliedNow
        }
    }
}

/// The tables every service needs: the transactional outbox and the record of processed events.
enum StoreMigrations {
    static let track = MigrationTrack(
        name: "caretide",
        migrations: [
            Migration(
                version: 1, name: "outbox and processed events",
                statements: [
                    """
                    CREATE TABLE outbox (
                        position bigserial PRIMARY KEY,
                        event_id uuid NOT NULL UNIQUE,
                        topic text NOT NULL,
                        message_key text,
                        event_type text NOT NULL,
                        schema_version integer NOT NULL,
                        trace_id text,
                        body bytea NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now())
                    """,
                    """
                    CREATE TABLE processed_events (
                        consumer text NOT NULL,
                        event_id uuid NOT NULL,
                        processed_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (consumer, event_id))
                    """,
                ]),
            Migration(
                version: 2, name: "parked messages and outbox rows",
                statements: [
                    // A consumed message that could not even be dead-lettered on Kafka (too large for the dead-letter topic,
                    // refused by the broker): kept here with its reason and origin, so its offset can be committed and the
                    // partition moves on. Values beyond the cap are kept as their digest and first bytes.
                    """
                    CREATE TABLE parked_messages (
                        id bigserial PRIMARY KEY,
                        consumer text NOT NULL,
                        reason text NOT NULL,
                        publish_error text NOT NULL,
                        source_topic text NOT NULL,
                        source_partition integer NOT NULL,
                        source_offset bigint NOT NULL,
                        message_key bytea,
                        headers jsonb NOT NULL,
                        value bytea,
                        value_size integer NOT NULL,
                        value_sha256 bytea,
                        value_truncated boolean NOT NULL,
                        parked_at timestamptz NOT NULL DEFAULT now(),
                        UNIQUE (consumer, source_topic, source_partition, source_offset))
                    """,
                    // An outbox row the broker refused for good (too large, invalid): moved here with the reason instead of
                    // blocking every row behind it.
                    // The outbox's own columns (LIKE keeps them in step), without its sequence default.
                    """
                    CREATE TABLE outbox_parked (
                        LIKE outbox,
                        reason text NOT NULL,
                        parked_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (position),
                        UNIQUE (event_id))
                    """,
                ]),
        ])
}
