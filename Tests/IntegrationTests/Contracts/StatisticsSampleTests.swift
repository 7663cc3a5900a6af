import CaretideRuntime
import CaretideStore
import CaretideTestSupport
import IngestService
import PostgresNIO
import ScoringService
import Testing

/// The tables that grow with every event keep a small statistics sample (ingest's and scoring's migrations 12): at the
/// default target ANALYZE sampled 30,000 rows of them every 5 to 10 s while a fresh table grew under load, a quarter
/// to half a second of CPU each time (BENCHMARKS.md, "A small sample"). A column added later starts at the default,
/// so each migration that adds one must give it the same target; this says which column was missed.
@Suite struct StatisticsSampleTests {
    /// A table that grows with every event, and its JSON documents (no statistics at all).
    struct GrowingTable: Sendable, CustomTestStringConvertible {
        let definition: ServiceDefinition
        let table: String
        let documents: [String]
        var testDescription: String { "\(definition.schema).\(table)" }
    }

    @Test(
        "every column of ingest's records and scoring's assessments has a statistics target of at most 10, the JSON documents none",
        arguments: [
            GrowingTable(definition: IngestService.definition, table: "records", documents: ["body"]),
            GrowingTable(definition: ScoringService.definition, table: "assessments", documents: ["inputs", "result"]),
        ])
    func growingTablesSampleLittle(_ growing: GrowingTable) async throws {
        let (definition, table, documents) = (growing.definition, growing.table, growing.documents)
        let logger = TestLogging.logger("statistics")
        let database = Database(configuration: try await TestPostgres.freshDatabase(), schema: definition.schema, logger: logger)
        let targets = try await database.whileRunning {
            try await Migrator(tracks: definition.migrationTracks).migrate(database, logger: logger)
            return try await database.transaction { connection in
                // attstattarget: -1 is "the default" (100 here), 0 is "no statistics".
                try await connection.query(
                    """
                    SELECT attname::text, attstattarget::int FROM pg_attribute
                    WHERE attrelid = \(table)::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum
                    """, logger: logger
                ).collect().map { try $0.decode((String, Int).self) }
            }
        }
        #expect(targets.count > documents.count)
        let sampledWide = targets.filter { name, target in !documents.contains(name) && !(1...10).contains(target) }.map(\.0)
        #expect(sampledWide.isEmpty, "columns sampled at the default (or not at all): \(sampledWide)")
        #expect(targets.filter { documents.contains($0.0) }.allSatisfy { $0.1 == 0 })
    }
}
