public import CaretideNutrition
public import CaretideRuntime
import CaretideSchemas
public import CaretideStore
import Foundation
public import Logging
import PostgresNIO

/// The SQL of food table releases: an import writes a release and its foods in one transaction, so replicas see all
/// of it or none; the newest release is the one served; older ones beyond `keep` are deleted.
public struct FoodStore: ServiceStore {
    public let session: StoreSession

    public init(session: StoreSession) {
        self.session = session
    }

    /// Serialises imports, so two at once get consecutive numbers and one prune at a time.
    private static let importLockKey: Int64 = 0x4354_464F_4F44_5349  // "CTFOODSI"
    private static let batchSize = 2_000

    public struct ImportReport: Encodable, Sendable {
        public let releaseNumber: Int64
        public let release: FoodRelease
        public let foods: Int
        public let portions: Int
        public let deletedReleases: Int

        public var summary: String {
            "food table release \(releaseNumber): \(release.name), \(foods) foods, \(portions) portions (\(release.licence)); "
                + "\(deletedReleases) older release(s) deleted"
        }
    }

    /// Writes `table` as the newest release and keeps the newest `keep` releases.
    public static func importTable(_ table: FoodTable, keep: Int, database: Database, logger: Logger) async throws -> ImportReport {
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(importLockKey))", logger: logger)
            let release = table.release
            let number = try await connection.query(
                """
                INSERT INTO food_releases (source_id, name, licence, source, food_count)
                VALUES (\(release.id), \(release.name), \(release.licence), \(release.source), \(table.foods.count))
                RETURNING release_number
                """, logger: logger
            ).collectAll()[0].decode(Int64.self)
            // Unknown values travel as NaN (arrays of optionals are not encodable) and are stored as NULL.
            func column(_ nutrient: Nutrient, _ foods: ArraySlice<Food>) -> [Double] { foods.map { $0.per100g[nutrient] ?? .nan } }
            var start = 0
            while start < table.foods.count {
                let chunk = table.foods[start..<min(start + batchSize, table.foods.count)]
                let portions = try chunk.map { try CaretideJSON.encodeToString($0.portions) }
                try await connection.query(
                    """
                    INSERT INTO foods (release_number, food_id, name, category, energy_kcal, protein_g, fat_g, saturated_fat_g, carbohydrate_g,
                                       sugars_g, fibre_g, sodium_mg, portions)
                    SELECT \(number), f, n, c, NULLIF(e, 'NaN'), NULLIF(p, 'NaN'), NULLIF(t, 'NaN'), NULLIF(s, 'NaN'), NULLIF(h, 'NaN'),
                           NULLIF(u, 'NaN'), NULLIF(b, 'NaN'), NULLIF(na, 'NaN'), w::jsonb
                    FROM unnest(\(chunk.map(\.id)), \(chunk.map(\.name)), \(chunk.map(\.category)), \(column(.energy, chunk)),
                                \(column(.protein, chunk)), \(column(.fat, chunk)), \(column(.saturatedFat, chunk)),
                                \(column(.carbohydrate, chunk)), \(column(.sugars, chunk)), \(column(.fibre, chunk)), \(column(.sodium, chunk)),
                                \(portions)) AS rows (f, n, c, e, p, t, s, h, u, b, na, w)
                    """, logger: logger)
                start += batchSize
            }
            let deleted = try await connection.query(
                """
                DELETE FROM food_releases WHERE release_number NOT IN
                    (SELECT release_number FROM food_releases ORDER BY release_number DESC LIMIT \(keep))
                RETURNING release_number
                """, logger: logger
            ).collectAll().count
            return ImportReport(
                releaseNumber: number, release: release, foods: table.foods.count, portions: table.foods.reduce(0) { $0 + $1.portions.count },
                deletedReleases: deleted)
        }
    }

    /// Whether any release has been imported (`caretide dev` imports one only into a database without).
    public static func hasRelease(database: Database, logger: Logger) async throws -> Bool {
        try await FoodStore(database: database, logger: logger).newestRelease() != nil
    }

    func newestRelease() async throws -> Int64? {
        try await session.query("SELECT max(release_number) FROM food_releases").collectAll().first?.decode(Int64?.self)
    }

    /// A release as it was imported, or nil when it was deleted meanwhile.
    func table(release number: Int64) async throws -> FoodTable? {
        guard
            let header = try await session.query(
                "SELECT source_id, name, licence, source FROM food_releases WHERE release_number = \(number)"
            ).collectAll().first
        else { return nil }
        let (id, name, licence, source) = try header.decode((String, String, String, String).self)
        let rows = try await session.query(
            """
            SELECT food_id, name, category, energy_kcal, protein_g, fat_g, saturated_fat_g, carbohydrate_g, sugars_g, fibre_g, sodium_mg,
                   portions::text
            FROM foods WHERE release_number = \(number) ORDER BY food_id
            """
        ).collectAll()
        let foods = try rows.map { row in
            let (foodID, foodName, category, energy, protein, fat, saturated, carbohydrate, sugars, fibre, sodium, portions) = try row.decode(
                (String, String, String, Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, String).self)
            return Food(
                id: foodID, name: foodName, category: category,
                per100g: Nutrients(
                    energyKcal: energy, proteinG: protein, fatG: fat, saturatedFatG: saturated, carbohydrateG: carbohydrate, sugarsG: sugars,
                    fibreG: fibre, sodiumMg: sodium),
                portions: try JSONDecoder().decode([FoodPortion].self, from: Data(portions.utf8)))
        }
        return FoodTable(release: FoodRelease(id: id, name: name, licence: licence, source: source), foods: foods)
    }
}
