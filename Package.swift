// swift-tools-version: 6.0
import PackageDescription

// Every module a target imports is declared here, and `scripts/test` builds with
// `--explicit-target-dependency-import-check error`, so an import that resolves only transitively fails the build.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let postgres: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let lifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let unixSignals: Target.Dependency = .product(name: "UnixSignals", package: "swift-service-lifecycle")
let jwt: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
let httpClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let propertyBased: Target.Dependency = .product(name: "PropertyBased", package: "swift-property-based")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "Caretide",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "caretide", targets: ["CaretideCLI"]),
        .executable(name: "caretide-bench", targets: ["CaretideBench"]),
        .executable(name: "ingest-service", targets: ["ingest-service"]),
        .executable(name: "scoring-service", targets: ["scoring-service"]),
        .executable(name: "notification-service", targets: ["notification-service"]),
        .executable(name: "diagnosis-service", targets: ["diagnosis-service"]),
        // The modules whose parsers FuzzTesting/ (a package of its own, built with libFuzzer) reads arbitrary bytes with.
        .library(name: "CaretideSchemas", targets: ["CaretideSchemas"]),
        .library(name: "CaretideArticles", targets: ["CaretideArticles"]),
        .library(name: "PhenotypeRanking", targets: ["PhenotypeRanking"]),
        .library(name: "CaretideNutrition", targets: ["CaretideNutrition"]),
        .library(name: "CaretideImaging", targets: ["CaretideImaging"]),
        .library(name: "IngestService", targets: ["IngestService"]),
        .library(name: "CaretideRuntime", targets: ["CaretideRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.25.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // Webhook delivery (notification-service): a pooled HTTP client with bounded waits, and HMAC signatures.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Report e-mail (notification-service): STARTTLS and TLS to the operator's SMTP relay.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `caretide-bench pipeline`: latency percentiles without keeping every sample.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // Ground floor: pure modules, no I/O.
        // The JSON Schemas at the top of the repository, bundled so the services validate against those very files.
        .target(
            name: "CaretideSchemaFiles", path: "Schemas",
            resources: [.copy("envelope.v1.schema.json"), .copy("events"), .copy("api"), .copy("asyncapi.yaml")]),
        .target(name: "CaretideDomain"),
        // Human Phenotype Ontology parsing and Phenomizer ranking with p-values (pure); diagnosis-service serves it.
        // Optimised in debug builds too: its kernels (null distributions, scoring every disease) run about thirty times
        // slower unoptimised, which made a development stack's import of the HPO release take nine minutes.
        .target(name: "PhenotypeRanking", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Charts and reports (pure): series downsampling, and later the SVG charts and the report layout.
        .target(name: "CaretideCharts", dependencies: ["CaretideSchemas"]),
        // Food composition, meal totals and their reference values (pure): ingest resolves meals, scoring analyses days.
        .target(name: "CaretideNutrition", dependencies: ["CaretideDomain"]),
        // Information pages (pure): Markdown into sanitised HTML and plain text, nothing else allowed through.
        // Information pages (notification-service): GitHub's CommonMark parser turns the Markdown into HTML, which
        // CaretideArticles then sanitises.
        .systemLibrary(
            name: "CCmarkGFM", pkgConfig: "libcmark-gfm", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .target(name: "CaretideArticles", dependencies: ["CCmarkGFM"]),
        // Skin photos: checked, stripped of identifying metadata and thumbnailed with Debian's libjpeg-turbo, libpng and libheif,
        // through C wrappers (libjpeg reports errors by longjmp, which Swift cannot cross).
        .target(name: "CImageCodecs", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("heif")]),
        .target(name: "CaretideImaging", dependencies: ["CImageCodecs"]),
        // Wire types reuse the domain's value enums (units, contexts, sex, severity), so there is one spelling of each.
        .target(name: "CaretideSchemas", dependencies: ["CaretideSchemaFiles", "CaretideDomain", "CaretideNutrition"]),
        // The clinical rules applied to recorded events (pure): shared by ingest (validation), scoring and `caretide rescore`.
        .target(name: "ClinicalAssessment", dependencies: ["CaretideSchemas", "CaretideDomain"]),

        // Middle floor: I/O adapters.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .target(name: "CaretideKafka", dependencies: ["CRdKafka", logging]),
        .target(name: "CaretideStore", dependencies: [postgres, logging, lifecycle]),
        // Who calls: bearer JWTs verified against the identity provider's keys (RFC 7519, RFC 7517, RFC 8725).
        .target(name: "CaretideIdentity", dependencies: ["CaretideSchemas", jwt, crypto]),

        // The runtime every service shares: HTTP, identity, events, outbox, jobs, service assembly.
        .target(
            name: "CaretideRuntime",
            dependencies: [
                "CaretideCharts", "CaretideDomain",
                "CaretideSchemas", "CaretideKafka", "CaretideStore", "CaretideIdentity",
                hummingbird, httpTypes, nioCore, lifecycle, unixSignals, postgres, logging, crypto,
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),

        // Top floor: a library per service (tests start them in-process) and a thin executable.
        .target(
            name: "IngestService",
            dependencies: [
                "CaretideRuntime", "CaretideDomain", "CaretideSchemas", "CaretideStore", "CaretideIdentity", "ClinicalAssessment", "CaretideCharts",
                "CaretideNutrition", "CaretideImaging", hummingbird, httpTypes, nioCore, postgres, logging, crypto, httpClient, nioHTTP1,
            ]),
        .target(
            name: "ScoringService",
            dependencies: [
                "CaretideRuntime", "CaretideDomain", "CaretideSchemas", "CaretideStore", "CaretideIdentity", "ClinicalAssessment", "CaretideCharts",
                "CaretideNutrition", hummingbird, httpTypes, postgres, logging,
            ]),
        .target(
            name: "NotificationService",
            dependencies: [
                "CaretideRuntime", "CaretideDomain", "CaretideSchemas", "CaretideStore", "CaretideIdentity", "CaretideArticles",
                hummingbird, nioCore, nioHTTP1, nioPosix, nioSSL, postgres, logging, lifecycle, httpClient, crypto,
            ]),
        .target(
            name: "DiagnosisService",
            dependencies: [
                "CaretideRuntime", "CaretideSchemas", "CaretideStore", "CaretideIdentity", "PhenotypeRanking", "CaretideCharts",
                hummingbird, httpTypes, nioCore, postgres, logging, lifecycle, crypto,
            ]),
        .executableTarget(name: "ingest-service", dependencies: ["IngestService", "CaretideRuntime"]),
        .executableTarget(name: "scoring-service", dependencies: ["ScoringService", "CaretideRuntime", "CaretideIdentity"]),
        .executableTarget(name: "notification-service", dependencies: ["NotificationService", "CaretideRuntime", "CaretideIdentity"]),
        .executableTarget(name: "diagnosis-service", dependencies: ["DiagnosisService", "CaretideRuntime"]),

        // Local development: a private PostgreSQL, child-process supervision and the commands' logging, for
        // `caretide dev`, the bench and the tests.
        .target(name: "CaretideLocalStack", dependencies: ["CaretideStore", logging]),
        // `caretide`: what an operator runs.
        .executableTarget(
            name: "CaretideCLI",
            dependencies: [
                "CaretideLocalStack", "CaretideRuntime", "CaretideKafka", "CaretideStore", "CaretideIdentity", "CaretideSchemas", "PhenotypeRanking",
                "CaretideNutrition", "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
                argumentParser, logging,
            ]),
        // `caretide-bench`: the benchmarks recorded in BENCHMARKS.md, apart from what an operator runs. The pipeline
        // bench drives a running stack over HTTP and records latencies in HdrHistograms.
        .executableTarget(
            name: "CaretideBench",
            dependencies: [
                "CaretideLocalStack", "CaretideRuntime", "CaretideKafka", "CaretideStore", "CaretideIdentity", "CaretideSchemas", "CaretideDomain",
                "PhenotypeRanking", "CaretideNutrition", "CaretideImaging", "ScoringService", "DiagnosisService",
                argumentParser, logging, httpClient, nioCore, nioHTTP1, nioPosix, postgres, lifecycle, hummingbird, httpTypes,
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),

        // Shared by the test targets: the tests' own PostgreSQL, an in-process stack, HTTP and Kafka probes, the Kafka
        // adapter's test helpers, and the HPO and food fixtures as the tests import them.
        .target(
            name: "CaretideTestSupport",
            dependencies: [
                "CaretideLocalStack", "CaretideRuntime", "CaretideIdentity", "CaretideKafka", "CaretideStore", "CaretideSchemas",
                "CaretideNutrition", "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
                lifecycle, logging,
            ], path: "Tests/CaretideTestSupport"),

        // Ground-floor tests: pure rules and state machines.
        .testTarget(name: "CaretideDomainTests", dependencies: ["CaretideDomain", propertyBased]),
        .testTarget(name: "CaretideChartsTests", dependencies: ["CaretideCharts", propertyBased]),
        .testTarget(
            name: "CaretideNutritionTests", dependencies: ["CaretideNutrition", "CaretideDomain", propertyBased], resources: [.copy("Fixtures")]),
        .testTarget(name: "CaretideArticlesTests", dependencies: ["CaretideArticles", propertyBased]),
        .testTarget(name: "CaretideImagingTests", dependencies: ["CaretideImaging"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CaretideSchemasTests", dependencies: ["CaretideSchemas", "CaretideDomain", "CaretideNutrition", propertyBased]),
        .testTarget(name: "ClinicalAssessmentTests", dependencies: ["ClinicalAssessment", "CaretideSchemas", "CaretideDomain"]),
        .testTarget(
            name: "PhenotypeRankingTests", dependencies: ["PhenotypeRanking", propertyBased], resources: [.copy("Fixtures")]),
        // Adapters against the real thing: librdkafka's mock cluster, a real PostgreSQL.
        .testTarget(name: "CaretideKafkaTests", dependencies: ["CaretideKafka", "CaretideTestSupport", logging]),
        .testTarget(
            name: "CaretideStoreTests",
            dependencies: [
                "CaretideStore", "CaretideSchemas", "CaretideRuntime", "CaretideLocalStack", "CaretideTestSupport", postgres, logging,
            ]),
        .testTarget(name: "CaretideIdentityTests", dependencies: ["CaretideIdentity", "CaretideSchemas", jwt]),
        .testTarget(
            name: "CaretideRuntimeTests",
            dependencies: [
                "CaretideRuntime", "CaretideIdentity", "CaretideKafka", "CaretideStore", "CaretideSchemas", hummingbird, httpTypes, logging,
            ]),
        // A target per service: its rules and state machines, without starting it.
        .testTarget(
            name: "IngestServiceTests",
            dependencies: [
                "IngestService", "CaretideSchemas", "CaretideRuntime", "CaretideNutrition", "CaretideImaging", "CaretideDomain", propertyBased,
            ],
            // HL7 v2 and FHIR messages written from the specifications, read by path (the integration tests read them too).
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ScoringServiceTests",
            dependencies: [
                "ScoringService", "ClinicalAssessment", "CaretideSchemas", "CaretideDomain", "CaretideRuntime", "CaretideCharts", "CaretideNutrition",
                propertyBased,
            ]),
        .testTarget(
            name: "NotificationServiceTests", dependencies: ["NotificationService", "CaretideDomain", "CaretideSchemas", "CaretideRuntime", crypto]),
        .testTarget(name: "DiagnosisServiceTests", dependencies: ["DiagnosisService", "PhenotypeRanking", "CaretideSchemas", "CaretideCharts"]),
        // Whole services started against a real PostgreSQL and the embedded broker: Flows/ (by service), Resilience/, Contracts/,
        // Tools/.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "CaretideTestSupport", "CaretideLocalStack", "CaretideIdentity", "CaretideRuntime", "CaretideKafka", "CaretideStore",
                "CaretideSchemas",
                "CaretideDomain", "CaretideNutrition", "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
                "PhenotypeRanking", postgres, logging, lifecycle, httpTypes,
                // A webhook receiver on loopback, and the signature check a receiver makes.
                hummingbird, crypto,
            ]),
        // The tests that must run one at a time, after the rest (`scripts/test`): they take the embedded broker down (the
        // mock re-binds its port at once, and aborts if another test took it), or load the machine enough to starve others.
        .testTarget(
            name: "SerialTests",
            dependencies: [
                "CaretideTestSupport", "CaretideLocalStack", "CaretideIdentity", "CaretideRuntime", "CaretideKafka", "CaretideStore",
                "CaretideSchemas", "CaretideDomain", "IngestService", "ScoringService", "NotificationService", "DiagnosisService",
                postgres, crypto,
            ]),
    ]
)

// Upcoming-language features the anchors build with (hummingbird's Package.swift applies them the same way), on every
// target of this package: `any` spelled out for existentials (SE-0335), members visible only from the modules a file
// imports (SE-0444), and imports internal unless a file says `public import` because its public API shows the
// module's types (SE-0409), so a module's API states what its clients must see.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
