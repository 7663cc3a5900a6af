import ArgumentParser
import CaretideLocalStack
import CaretideRuntime
import CaretideStore
import Foundation
import NIOCore
import PostgresNIO

/// What reading one row of a result costs, one core, decoded as a tuple in one call (`row.decode((A, B, …).self)`)
/// and column by column (`RowReader`): the relay's outbox rows (eight columns, a body of a reading's size) and
/// scoring's trend series rows (seven, three of them NULL). The rows are fetched once from a private PostgreSQL and
/// decoded again and again, so only the decoding is timed (BENCHMARKS.md, "Rows read column by column").
struct RowDecodingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rows", abstract: "Nanoseconds per row to decode query results, as a tuple and column by column, one core.")

    @Option(help: "Rows fetched of each shape.") var count = 2_000
    @Option(help: "Rounds; the fastest and the median are reported.") var rounds = 15

    func validate() throws {
        guard count >= 1, rounds >= 1 else { throw ValidationError("--count and --rounds must be at least 1") }
    }

    typealias OutboxColumns = (Int64, UUID, String, String?, String, Int, String?, ByteBuffer)
    typealias TrendColumns = (Int, Date, String, Double?, Double?, Double?, String?)

    func run() async throws {
        let logger = BenchPostgres.logger
        let bench = try await BenchPostgres.start(logger: logger)
        defer { bench.stop() }
        let database = Database(configuration: bench.server.superuserConfiguration(), schema: "public", logger: logger)
        let (outboxRows, trendRows) = try await database.whileRunning {
            let outbox = try await database.client.query(
                """
                SELECT g::int8, gen_random_uuid(), 'caretide.measurements', 'patient-' || (g % 1000), 'blood-pressure.recorded', 1::int8,
                       md5(g::text), convert_to(repeat('x', 330), 'UTF8')
                FROM generate_series(1, \(count)) g
                """, logger: logger
            ).collectAll()
            let trend = try await database.client.query(
                """
                SELECT (g % 12)::int8, now() - g * interval '1 minute', 'stage2Hypertension', 150::float8, 95::float8, NULL::float8, NULL::text
                FROM generate_series(1, \(count)) g
                """, logger: logger
            ).collectAll()
            return (outbox, trend)
        }
        // Both ways must read the same values, or the figures would compare different work.
        for row in outboxRows.prefix(10) {
            let tuple = try row.decode(OutboxColumns.self)
            let columns = try Self.outboxColumns(row)
            guard tuple.0 == columns.0, tuple.1 == columns.1, tuple.3 == columns.3, tuple.7 == columns.7 else {
                throw ValidationError("the two ways read different outbox rows")
            }
        }
        let measured: [(String, [PostgresRow], (PostgresRow) throws -> Void)] = [
            ("outbox row as a tuple", outboxRows, { _ = try $0.decode(OutboxColumns.self) }),
            ("outbox row column by column", outboxRows, { _ = try Self.outboxColumns($0) }),
            ("trend row as a tuple", trendRows, { _ = try $0.decode(TrendColumns.self) }),
            ("trend row column by column", trendRows, { _ = try Self.trendColumns($0) }),
        ]
        Console.write("per row, the fastest and the median of \(rounds) rounds of \(count) rows:\n")
        let clock = ContinuousClock()
        for (name, rows, decode) in measured {
            for row in rows { try decode(row) }
            var perRow: [Double] = []
            for _ in 0..<rounds {
                let start = clock.now
                for row in rows { try decode(row) }
                perRow.append((clock.now - start).seconds * 1e9 / Double(rows.count))
            }
            let sorted = perRow.sorted()
            Console.write(
                "\(name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", sorted[0])) ns  (median \(String(format: "%.0f", sorted[sorted.count / 2])))\n"
            )
        }
    }

    static func outboxColumns(_ row: PostgresRow) throws -> OutboxColumns {
        var columns = RowReader(row)
        return (
            try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(),
            try columns.next(), try columns.next()
        )
    }

    static func trendColumns(_ row: PostgresRow) throws -> TrendColumns {
        var columns = RowReader(row)
        return (
            try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(),
            try columns.next()
        )
    }
}
