// swift-tools-version: 5.4
import PackageDescription

// Tools version 5.4, not the main package's 6.0, and on purpose: from 5.5 on, SwiftPM compiles an executable's entry
// point as `<Target>_main` and links `main` to it (`--defsym main=<Target>_main` on Linux). Under -parse-as-library no
// entry point is emitted, so that link fails; and were one defined, it would replace libFuzzer's own `main`. 5.4 is the
// last version that leaves `main` to libFuzzer (swift-nio-http2's and swift-protobuf's fuzz packages are on 5.3).
// These targets compile in the Swift 5 language mode.

// libFuzzer targets for Caretide's parsers, one executable each, in a package of their own (as swift-nio-http2 keeps
// its FuzzTesting/) so that the sanitiser flags never reach the main build. Built and run by scripts/fuzz-parsers:
//
//     swift build -c debug --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// Each target reads arbitrary bytes and checks one thing: the parser returns (a value or an error) without crashing or
// hanging. README.md says how a crash becomes a regression input in FailCases/.
let package = Package(
    name: "FuzzTesting",
    platforms: [.macOS("15.0")],
    dependencies: [
        // Named, so that the products below are found whatever the checkout's folder is called.
        .package(name: "Caretide", path: "..")
    ],
    targets: [
        .executableTarget(name: "FuzzJSON", dependencies: [caretide("CaretideSchemas")]),
        .executableTarget(name: "FuzzMarkdown", dependencies: [caretide("CaretideArticles")]),
        .executableTarget(name: "FuzzOBO", dependencies: [caretide("PhenotypeRanking")]),
        .executableTarget(name: "FuzzHPOA", dependencies: [caretide("PhenotypeRanking")]),
        // The byte-level SR28 parser is internal (`@testable import`, which a debug build allows).
        .executableTarget(name: "FuzzSR28", dependencies: [caretide("CaretideNutrition")]),
        .executableTarget(name: "FuzzImages", dependencies: [caretide("CaretideImaging")]),
        // HL7 v2 and FHIR are read inside IngestService, internal to it (`@testable import`).
        .executableTarget(name: "FuzzHL7v2", dependencies: [caretide("IngestService"), caretide("CaretideSchemas")]),
        .executableTarget(name: "FuzzFHIR", dependencies: [caretide("IngestService"), caretide("CaretideSchemas")]),
        // X-Forwarded-For behind trusted proxies: text a client may write, read on every request where proxies are named.
        .executableTarget(name: "FuzzForwardedFor", dependencies: [caretide("CaretideRuntime")]),
    ]
)

func caretide(_ product: String) -> Target.Dependency {
    .product(name: product, package: "Caretide")
}
