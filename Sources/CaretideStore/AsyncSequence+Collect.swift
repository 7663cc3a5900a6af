import Logging
public import PostgresNIO

extension AsyncSequence {
    /// All elements in order; for result sets known to be small (a page of rows, a RETURNING clause).
    public func collectAll() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self { elements.append(element) }
        return elements
    }
}

extension PostgresConnection {
    /// Runs `query` and decodes every row as `columns`.
    public func fetchAll<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as columns: (repeat each Column).Type, logger: Logger
    ) async throws -> [(repeat each Column)] {
        let rows = try await self.query(query, logger: logger)
        return try await rows.decode(columns).collectAll()
    }
}

extension PostgresClient {
    /// Runs `query` on a pooled connection and decodes every row as `columns`.
    public func fetchAll<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as columns: (repeat each Column).Type, logger: Logger
    ) async throws -> [(repeat each Column)] {
        let rows = try await self.query(query, logger: logger)
        return try await rows.decode(columns).collectAll()
    }
}
