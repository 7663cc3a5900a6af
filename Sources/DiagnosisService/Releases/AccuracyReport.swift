import Foundation
import PhenotypeRanking

/// How well a release ranks the diseases of simulated patients — the evaluation of Köhler et al. 2009: sample a
/// disease's annotated terms, optionally replace some by a parent term (imprecision) and add unrelated terms (noise),
/// and record where the source disease ranks. Stored with every full import, so a release whose annotations
/// degrade the ranking is visible before doctors rely on it.
public struct AccuracyReport: Codable, Sendable, Equatable {
    public struct Scenario: Codable, Sendable, Equatable {
        public var name: String
        public var termsPerQuery: Int
        /// Probability that each sampled term is replaced by one of its parents.
        public var imprecision: Double
        /// Unrelated terms added to each query.
        public var noiseTerms: Int
        public var evaluated: Int
        /// Fraction of simulated patients whose disease ranked first.
        public var rankedFirst: Double
        /// Fraction whose disease ranked in the first three (nil in reports stored before it was measured).
        public var inTopThree: Double?
        /// Fraction whose disease ranked in the first ten.
        public var inTopTen: Double
    }

    /// What ordered the simulated patients' rankings: the service's default, `likelihoodRatio` (with the asymmetric
    /// similarity's p-values); `asymmetric` in reports stored before it.
    public var scoring: String
    public var seed: UInt64
    public var scenarios: [Scenario]

    /// The four scenarios: exact terms, imprecise terms (each replaced by a parent with probability ½), noise (two
    /// unrelated terms added), and imprecise terms with noise.
    static let scenarios: [(name: String, imprecision: Double, noise: Int)] = [
        ("exact", 0, 0), ("imprecise", 0.5, 0), ("noisy", 0, 2), ("impreciseWithNoise", 0.5, 2),
    ]

    static func measure(_ ranker: PhenotypeRanker, diseaseCount: Int, termsPerQuery: Int = 5, seed: UInt64 = 42) throws -> AccuracyReport {
        let scenarios = try scenarios.map { scenario in
            let report = try ranker.recallCheck(
                RecallCheckOptions(
                    diseaseCount: diseaseCount, termsPerQuery: termsPerQuery, imprecision: scenario.imprecision,
                    noiseTerms: scenario.noise, seed: seed, scoring: .asymmetric, method: .likelihoodRatio))
            return Scenario(
                name: scenario.name, termsPerQuery: termsPerQuery, imprecision: scenario.imprecision, noiseTerms: scenario.noise,
                evaluated: report.evaluated, rankedFirst: report.rankedFirst, inTopThree: report.inTopThree, inTopTen: report.inTopTen)
        }
        return AccuracyReport(scoring: "likelihoodRatio", seed: seed, scenarios: scenarios)
    }
}
