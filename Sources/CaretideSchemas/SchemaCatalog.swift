import CaretideSchemaFiles
public import Foundation

/// The JSON Schemas shipped with Caretide (`Schemas/` at the top of the repository, bundled as a resource),
/// loaded once and shared: the envelope, one schema per event payload, and the HTTP request bodies.
public struct SchemaCatalog: Sendable {
    public let envelope: JSONSchema
    /// Each event type's current payload schema: the highest version whose file exists.
    public let payloads: [EventType: JSONSchema]
    /// The current version of each event type's payload, and the version before it, if its file exists: consumers
    /// accept both (docs/operations.md, "Upgrading").
    public let currentVersions: [EventType: Int]
    public let previousPayloads: [EventType: (version: Int, schema: JSONSchema)]
    /// The request-body schemas.
    public let requests: [RequestSchema: JSONSchema]

    public struct LoadError: Error, CustomStringConvertible {
        public let file: String
        public let reason: String
        public var description: String { "schema \(file): \(reason)" }
    }

    /// The catalog bundled with this build. Loading can only fail if the build itself is broken.
    public static let bundled: SchemaCatalog = {
        do {
            return try SchemaCatalog(directory: bundledDirectory)
        } catch {
            fatalError("the bundled JSON Schemas do not load: \(error)")
        }
    }()

    public static var bundledDirectory: URL {
        SchemaFiles.directory
    }

    public init(directory: URL) throws {
        func load(_ relativePath: String) throws -> JSONSchema {
            let url = directory.appendingPathComponent(relativePath)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw LoadError(file: relativePath, reason: "missing")
            }
            do {
                return try JSONSchema(bytes: data)
            } catch {
                throw LoadError(file: relativePath, reason: error.description)
            }
        }
        envelope = try load("envelope.v1.schema.json")
        var payloads: [EventType: JSONSchema] = [:]
        var currentVersions: [EventType: Int] = [:]
        var previousPayloads: [EventType: (version: Int, schema: JSONSchema)] = [:]
        for type in EventType.allCases {
            // Version 1 must exist; every further version is a file of its own beside it.
            var version = 1
            var schema = try load("events/\(type.rawValue).v1.schema.json")
            while FileManager.default.fileExists(atPath: directory.appendingPathComponent("events/\(type.rawValue).v\(version + 1).schema.json").path)
            {
                previousPayloads[type] = (version, schema)
                version += 1
                schema = try load("events/\(type.rawValue).v\(version).schema.json")
            }
            payloads[type] = schema
            currentVersions[type] = version
        }
        self.payloads = payloads
        self.currentVersions = currentVersions
        self.previousPayloads = previousPayloads
        var requests: [RequestSchema: JSONSchema] = [:]
        for schema in RequestSchema.allCases { requests[schema] = try load(schema.path) }
        self.requests = requests
    }

    /// Validates a request body against its schema; returns every violation.
    public func validateRequest(_ schema: RequestSchema, _ body: JSONValue) -> [SchemaViolation] {
        // Every case was loaded by `init`, or the catalog would not exist.
        requests[schema]!.validate(body)
    }
}
