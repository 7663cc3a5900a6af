public import Foundation

/// What `caretide dev` writes to `<state-dir>/endpoints.json` once every service is ready.
public struct Endpoints: Codable, Sendable, Equatable {
    public var kafka: String
    public var database: String
    public var ingest: String
    public var scoring: String
    public var notification: String
    public var diagnosis: String

    public init(kafka: String, database: String, ingest: String, scoring: String, notification: String, diagnosis: String) {
        self.kafka = kafka
        self.database = database
        self.ingest = ingest
        self.scoring = scoring
        self.notification = notification
        self.diagnosis = diagnosis
    }

    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
