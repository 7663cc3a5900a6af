import ArgumentParser

/// `caretide-bench`: the measurements recorded in BENCHMARKS.md, kept apart from `caretide`, which holds only what an
/// operator runs. Run them from a release build (`swift build -c release`).
@main
struct CaretideBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caretide-bench", abstract: "Measure throughput and latency (use a release build: swift build -c release).",
        subcommands: [
            DomainBench.self, ScoringBench.self, PhenotypeBench.self, PhenotypeAccuracyBench.self, AuthBench.self, PipelineBench.self,
            SeriesBench.self, ReportBench.self, FoodSearchBench.self, PhotoCheckBench.self, SkinPresenceBench.self, CodecBench.self,
            HTTPFloorBench.self, RowDecodingBench.self,
            PhenopacketBench.self, NullExtrapolationBench.self,
        ])
}
