import ArgumentParser

/// `caretide bench`: measurements recorded in BENCHMARKS.md. Run them from a release build.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure throughput and latency (use a release build: swift build -c release).",
        subcommands: [DomainBench.self, ScoringBench.self, PhenotypeBench.self, AuthBench.self, PipelineBench.self])
}
