import Foundation
import PostgresNIO

/// Where a service's PostgreSQL is, parsed from a `postgres://user:password@host:port/database?sslmode=...` URL.
public struct DatabaseConfiguration: Sendable, Equatable {
    public enum TLSMode: String, Sendable { case disable, prefer, require }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The server cancels any statement running longer (PostgreSQL's `statement_timeout`), so no query of a service
    /// can wait forever on a lock or a slow plan. 120 s leaves room for the largest statements of an HPO import.
    public var statementTimeout: Duration = .seconds(120)

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String, tls: TLSMode = .disable) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses a libpq-style URL. The error names what is wrong without echoing the URL, which may hold a password.
    public init(url: String) throws(ConfigurationProblem) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw ConfigurationProblem("must be a URL such as postgres://user:password@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else { throw ConfigurationProblem("has no host") }
        guard let user = components.user, !user.isEmpty else { throw ConfigurationProblem("has no user name") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw ConfigurationProblem("has no database name") }
        let sslmode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        let tls: TLSMode
        switch sslmode {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        default: throw ConfigurationProblem("has an unknown sslmode (use disable, prefer or require)")
        }
        self.init(
            host: host, port: components.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database, tls: tls)
    }

    /// The URL without the password, safe for logs and endpoints.json.
    public var redactedURL: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    public var url: String {
        let credentials = password.map { "\(username):\($0)" } ?? username
        return "postgres://\(credentials)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }

    /// A PostgresNIO configuration whose connections use `schema` as their search path, so each service's
    /// unqualified table names resolve to its own schema.
    func clientConfiguration(schema: String?) -> PostgresClient.Configuration {
        let tlsConfiguration: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsConfiguration)
        if let schema {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        let (seconds, attoseconds) = statementTimeout.components
        configuration.options.additionalStartupParameters.append(
            ("statement_timeout", String(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))))
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

/// A configuration value that cannot be used, with a message naming what is wrong (never the value itself).
public struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
