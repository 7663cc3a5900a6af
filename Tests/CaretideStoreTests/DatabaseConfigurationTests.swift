import CaretideStore
import Testing

@Suite struct DatabaseConfigurationTests {
    @Test func parsesAFullURL() throws {
        let configuration = try DatabaseConfiguration(url: "postgres://care%40tide:s3cr%2Ft@db.example:6543/caretide?sslmode=require")
        #expect(
            configuration
                == DatabaseConfiguration(
                    host: "db.example", port: 6543, username: "care@tide", password: "s3cr/t", database: "caretide", tls: .require))
        #expect(configuration.redactedURL == "postgres://care@tide@db.example:6543/caretide")
        #expect(!configuration.redactedURL.contains("s3cr"))
    }

    @Test func defaultsPortAndTLS() throws {
        let configuration = try DatabaseConfiguration(url: "postgresql://caretide@localhost/caretide")
        #expect(configuration.port == 5432)
        #expect(configuration.tls == .disable)
        #expect(configuration.password == nil)
    }

    @Test(arguments: [
        ("mysql://u@h/db", "must be a URL"),
        ("postgres://h/db", "has no user name"),
        ("postgres://u@h", "has no database name"),
        ("postgres://u@h/db?sslmode=sometimes", "unknown sslmode"),
    ])
    func refusesBadURLsWithoutEchoingThem(url: String, expected: String) {
        do {
            _ = try DatabaseConfiguration(url: url)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.message.contains(expected))
            #expect(!error.message.contains(url))
        }
    }
}
