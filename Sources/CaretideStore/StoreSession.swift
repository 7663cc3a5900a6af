public import Logging
public import PostgresNIO

/// Where a store's statements run: inside one transaction's connection (a consumed event, a write, a job), or on the
/// pool, each statement on a connection of its own (a request's reads). A store is built from one, so a read written
/// once serves a route and a handler alike, and no caller passes a connection and a logger along.
public struct StoreSession: Sendable {
    private enum Target: Sendable {
        case pool(PostgresClient)
        case connection(PostgresConnection)
    }

    private let target: Target
    public let logger: Logger

    /// Each statement on a pooled connection of its own (autocommit).
    public init(pool: PostgresClient, logger: Logger) {
        target = .pool(pool)
        self.logger = logger
    }

    /// Every statement on `connection`, inside whatever transaction it is in.
    public init(connection: PostgresConnection, logger: Logger) {
        target = .connection(connection)
        self.logger = logger
    }

    @discardableResult
    public func query(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) async throws -> PostgresRowSequence {
        switch target {
        case .pool(let client): try await client.query(query, logger: logger, file: file, line: line)
        case .connection(let connection): try await connection.query(query, logger: logger, file: file, line: line)
        }
    }

    /// Runs `query` and decodes every row as `columns`.
    public func fetchAll<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as columns: (repeat each Column).Type, file: String = #fileID, line: Int = #line
    ) async throws -> [(repeat each Column)] {
        try await self.query(query, file: file, line: line).decode(columns).collectAll()
    }

    /// Runs a prepared statement (prepared once per connection).
    public func execute<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, file: String = #fileID, line: Int = #line
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Row> where Row == Statement.Row {
        switch target {
        case .pool(let client): try await client.execute(statement, logger: logger, file: file, line: line)
        case .connection(let connection): try await connection.execute(statement, logger: logger, file: file, line: line)
        }
    }
}
