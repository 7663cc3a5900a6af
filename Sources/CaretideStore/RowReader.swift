public import PostgresNIO

/// A row's columns read in order, each as the concrete type its call names.
///
/// `row.decode((A, B, …).self)` walks a parameter pack, and the runtime looks the type of each of its elements up
/// again for every row (generic metadata, found in a locked hash table): in the statements that read many rows under
/// load, the relay's outbox batch and scoring's trend series, those look-ups were about a third of the decoding's time
/// (`BENCHMARKS.md`). Here every call is specialized for its type where it is written, so none is looked up.
public struct RowReader {
    @usableFromInline var cells: PostgresRow.Iterator

    @inlinable
    public init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column as `T` (an optional for a column that may be NULL); throws when the row has no more columns
    /// or the column does not decode as `T`.
    @inlinable
    public mutating func next<T: PostgresDecodable>(_: T.Type = T.self, file: String = #fileID, line: Int = #line) throws -> T {
        guard let cell = cells.next() else { throw MissingColumn(type: "\(T.self)", file: file, line: line) }
        return try cell.decode(T.self, file: file, line: line)
    }

    /// A statement's row has fewer columns than its reader reads: a defect of the statement, not of the data.
    public struct MissingColumn: Error, CustomStringConvertible {
        public let type: String
        public let file: String
        public let line: Int

        @inlinable
        public init(type: String, file: String, line: Int) {
            self.type = type
            self.file = file
            self.line = line
        }

        public var description: String { "a row has no column left to read as \(type) (\(file):\(line))" }
    }
}
