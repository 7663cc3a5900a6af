import ArgumentParser
import CaretideRuntime
import DiagnosisService
import Foundation
import PhenotypeRanking

/// How well each candidate ordering ranks the diseases of simulated patients (Köhler et al. 2009): the same
/// patients, drawn as the accuracy report at import draws them, in four variants (exact terms, imprecise terms,
/// noise added, both), each ranked once and put in every ordering. Prints top 1 / top 3 / top 10 per variant and
/// ordering; the choice of `RankingOrdering.standard` and its figures are in docs/clinical-rules.md §11.
struct PhenotypeAccuracyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phenotype-accuracy",
        abstract: "diagnosis-service: top 1 / 3 / 10 of simulated patients for each candidate disease ordering.",
        discussion: "Needs hp.obo and phenotype.hpoa (scripts/fetch-hpo-release .hpo-data); no database.")

    @Option(help: "Folder holding hp.obo and phenotype.hpoa.") var directory: String
    @Option(help: "Simulated patients per variant.") var patients = 2000
    @Option(help: "Annotated terms sampled per patient.") var terms = 5
    @Option(help: "Random queries per query size in the null distribution.") var samples = OntologyImportOptions().nullSampleCount
    @Option(help: "Score bins of the null distribution.") var bins = OntologyImportOptions().nullBinCount
    @Option(help: "The simulation's seed (the import's is 42).") var seed: UInt64 = 42
    @Option(
        help: "Which entries of different sources are scored as one disease: \(SourcePooling.allCases.map(\.rawValue).joined(separator: ", ")).",
        transform: PhenotypeAccuracyBench.poolingRule)
    var pooling = SourcePooling.current

    /// The variants: exact, imprecise (each term replaced by a parent with probability ½), noisy (two unrelated
    /// terms added), and both.
    static let variants: [(name: String, imprecision: Double, noise: Int)] = [
        ("exact", 0, 0), ("imprecise", 0.5, 0), ("noisy", 0, 2), ("imprecise + noisy", 0.5, 2),
    ]

    static let orderings: [RankingOrdering] =
        [.pValueThenScore, .score, .scoreThenPValue]
        + [0.25, 0.5, 0.75, 1, 1.5, 2, 4].map { RankingOrdering.combined(weight: $0) }
        + [0.001, 0.01, 0.05].map { RankingOrdering.pValueFloorThenScore(floor: $0) }

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let ranker = try Self.asymmetricRanker(directory: directory, samples: samples, bins: bins, pooling: pooling)
        let kb = ranker.knowledgeBase
        print(
            String(
                format: "%d diseases, %d terms; knowledge base and null distribution in %.1f s", kb.diseaseCount, kb.termCount,
                (clock.now - start).seconds))
        print("\(patients) simulated patients per variant, \(terms) terms each, seed \(seed), asymmetric scoring, \(samples) null samples")
        var rows: [String] = []
        for variant in Self.variants {
            let reports = try ranker.recallCheck(
                RecallCheckOptions(
                    diseaseCount: patients, termsPerQuery: terms, imprecision: variant.imprecision, noiseTerms: variant.noise, seed: seed,
                    scoring: .asymmetric), orderings: Self.orderings)
            for (ordering, report) in zip(Self.orderings, reports) {
                rows.append(
                    "| \(variant.name) | \(ordering) | "
                        + String(format: "%.3f | %.3f | %.3f |", report.rankedFirst, report.inTopThree, report.inTopTen))
            }
            // The same patients (the same seed draws the same queries) by likelihood ratio, the service's default.
            // Its order reads the similarity's p-value with weight w: ln LR + w · (−log10 p) (`RankingOrdering.combined`).
            let weights = [0, LikelihoodRatioScoring.Parameters.standard.pValueWeight]
            let ratios = try ranker.recallCheck(
                RecallCheckOptions(
                    diseaseCount: patients, termsPerQuery: terms, imprecision: variant.imprecision, noiseTerms: variant.noise, seed: seed,
                    scoring: .asymmetric, method: .likelihoodRatio), orderings: weights.map { $0 > 0 ? .combined(weight: $0) : .score })
            for (weight, report) in zip(weights, ratios) {
                rows.append(
                    "| \(variant.name) | likelihood ratio, p-value weight \(weight) | "
                        + String(format: "%.3f | %.3f | %.3f |", report.rankedFirst, report.inTopThree, report.inTopTen))
            }
        }
        print("| variant | ordering | top 1 | top 3 | top 10 |\n|---|---|---|---|---|")
        for row in rows { print(row) }
        print(String(format: "total %.1f s", (clock.now - start).seconds))
    }
}

extension ParsableCommand {
    /// The `--pooling` option's rule by its name.
    static func poolingRule(_ name: String) throws -> SourcePooling {
        guard let rule = SourcePooling(rawValue: name) else { throw ValidationError("no pooling rule \(name)") }
        return rule
    }

    /// The release in `directory` (hp.obo, phenotype.hpoa) built into an asymmetric ranker as the import builds it, with
    /// `samples` random queries per query size and `bins` score bins in its null distribution: what the in-process
    /// accuracy benchmarks rank with.
    /// `pooling` chooses which entries of different sources are scored as one disease (an earlier rule, to compare).
    static func asymmetricRanker(
        directory: String, samples: Int, bins: Int = OntologyImportOptions().nullBinCount, pooling: SourcePooling = .current
    ) throws -> PhenotypeRanker {
        let kb = try PhenotypeKnowledgeBase(
            obo: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/hp.obo")),
            hpoa: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/phenotype.hpoa")), pooling: pooling)
        let defaults = OntologyImportOptions()
        let null = try NullDistribution.build(
            for: kb,
            options: NullDistributionOptions(
                scoring: .asymmetric, sampleCount: samples, maxQuerySize: defaults.nullMaxQuerySize, binCount: bins,
                concurrency: defaults.concurrency))
        return try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
    }
}
