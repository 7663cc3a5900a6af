// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Caretide",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "caretide", targets: ["CaretideCLI"]),
        .executable(name: "ingest-service", targets: ["ingest-service"]),
        .executable(name: "scoring-service", targets: ["scoring-service"]),
        .executable(name: "notification-service", targets: ["notification-service"]),
        .executable(name: "diagnosis-service", targets: ["diagnosis-service"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.25.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // Webhook delivery (notification-service): a pooled HTTP client with bounded waits, and HMAC signatures.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `caretide bench pipeline`: latency percentiles without keeping every sample.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // Ground floor: pure modules, no I/O.
        // The JSON Schemas at the top of the repository, bundled so the services validate against those very files.
        .target(name: "CaretideSchemaFiles", path: "Schemas", resources: [.copy("envelope.v1.schema.json"), .copy("events"), .copy("api"), .copy("asyncapi.yaml")]),
        .target(name: "CaretideDomain"),
        // Human Phenotype Ontology parsing and Phenomizer ranking with p-values (pure); diagnosis-service will serve it.
        .target(name: "PhenotypeRanking"),
        // Wire types reuse the domain's value enums (units, contexts, sex, severity), so there is one spelling of each.
        .target(name: "CaretideSchemas", dependencies: ["CaretideSchemaFiles", "CaretideDomain"]),
        // The clinical rules applied to recorded events (pure): shared by ingest (validation), scoring and `caretide rescore`.
        .target(name: "ClinicalAssessment", dependencies: ["CaretideSchemas", "CaretideDomain"]),

        // I/O adapters.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .target(name: "CaretideKafka", dependencies: [
            "CRdKafka",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "CaretideStore", dependencies: [
            "CaretideSchemas",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Who calls: bearer JWTs verified against the identity provider's keys (RFC 7519, RFC 7517, RFC 8725).
        .target(name: "CaretideIdentity", dependencies: [.product(name: "JWTKit", package: "jwt-kit")]),

        // Runtime shared by every service.
        .target(name: "CaretideRuntime", dependencies: [
            "CaretideSchemas", "CaretideDomain", "CaretideKafka", "CaretideStore", "CaretideIdentity",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Services: a library each (tests start them in-process) and a thin executable.
        .target(name: "IngestService", dependencies: ["CaretideRuntime", "CaretideDomain", "ClinicalAssessment"]),
        .target(name: "ScoringService", dependencies: ["CaretideRuntime", "CaretideDomain", "ClinicalAssessment"]),
        .target(name: "NotificationService", dependencies: [
            "CaretideRuntime", "CaretideDomain", "ClinicalAssessment",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "DiagnosisService", dependencies: [
            "CaretideRuntime", "PhenotypeRanking",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "ingest-service", dependencies: ["IngestService"]),
        .executableTarget(name: "scoring-service", dependencies: ["ScoringService"]),
        .executableTarget(name: "notification-service", dependencies: ["NotificationService"]),
        .executableTarget(name: "diagnosis-service", dependencies: ["DiagnosisService"]),

        // Local development: a private PostgreSQL and child-process supervision for `caretide dev` and the tests.
        .target(name: "CaretideLocalStack", dependencies: [
            "CaretideStore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "CaretideCLI", dependencies: [
            "CaretideLocalStack", "CaretideRuntime", "CaretideKafka", "CaretideStore", "CaretideIdentity", "PhenotypeRanking",
            "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            // `caretide bench pipeline` drives a running stack over HTTP and records latencies in HdrHistograms.
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),

        // Shared by the test targets: the tests' own PostgreSQL, an in-process stack, HTTP and Kafka probes.
        .target(name: "CaretideTestSupport", dependencies: [
            "CaretideLocalStack", "CaretideRuntime", "CaretideIdentity", "CaretideKafka", "CaretideStore", "CaretideSchemas",
            "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Tests/CaretideTestSupport"),
        .testTarget(name: "CaretideSchemasTests", dependencies: [
            "CaretideSchemas", "CaretideDomain", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "ClinicalAssessmentTests", dependencies: ["ClinicalAssessment"]),
        .testTarget(name: "NotificationServiceTests", dependencies: ["NotificationService", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "PhenotypeRankingTests",
            dependencies: ["PhenotypeRanking", .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "CaretideDomainTests", dependencies: [
            "CaretideDomain",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "CaretideKafkaTests", dependencies: ["CaretideKafka", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "CaretideStoreTests", dependencies: [
            "CaretideStore", "CaretideTestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        .testTarget(name: "CaretideIdentityTests", dependencies: ["CaretideIdentity", .product(name: "JWTKit", package: "jwt-kit")]),
        .testTarget(name: "CaretideRuntimeTests", dependencies: [
            "CaretideRuntime", "CaretideIdentity", .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .testTarget(
            name: "IngestServiceTests",
            dependencies: ["IngestService", "CaretideSchemas", "CaretideRuntime", .product(name: "PropertyBased", package: "swift-property-based")],
            // HL7 v2 and FHIR messages written from the specifications, read by path (the integration tests read them too).
            exclude: ["Fixtures"]),
        .testTarget(name: "IntegrationTests", dependencies: [
            "CaretideTestSupport", "CaretideLocalStack", "CaretideIdentity", "CaretideRuntime", "CaretideKafka", "CaretideStore", "CaretideSchemas",
            "IngestService", "ScoringService", "NotificationService", "DiagnosisService", "PhenotypeRanking",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            // A webhook receiver on loopback, and the signature check a receiver makes.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
    ]
)
