import ArgumentParser
import CaretideRuntime
import DiagnosisService
import Foundation
import PhenotypeRanking
import Synchronization

/// Where the true disease of published cases lands, ranked in-process for each scoring variant: the cases as
/// `scripts/bench/phenopackets --cases-out` maps them from phenopacket-store, the ranker as diagnosis-service builds it
/// at import (no service, no database). Quick enough to compare many variants of the exclusion rule in one run; the
/// figures in BENCHMARKS.md are the script's, through the service's HTTP API.
struct PhenopacketBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phenopackets",
        abstract: "diagnosis-service: top 1 / 3 / 10 of published cases (phenopacket-store) for each exclusion-rule variant, in-process.",
        discussion: """
            Needs hp.obo and phenotype.hpoa (scripts/fetch-hpo-release DIR) and the cases of
            `scripts/bench/phenopackets --store STORE --hpo-dir DIR --dry-run --cases-out cases.json`.
            """)

    @Option(help: "Folder holding hp.obo and phenotype.hpoa.") var directory: String
    @Option(help: "The cases as mapped (JSON of scripts/bench/phenopackets --cases-out).") var cases: String
    @Option(help: "Exclusion penalty weights to compare, comma-separated.") var weights = "\(RankingOptions.defaultExclusionPenaltyWeight)"
    @Option(help: "Least shares of patients for an absent finding to count, comma-separated.") var minimumShares =
        "\(RankingOptions.defaultExclusionMinimumShare)"
    @Option(help: "Shares assumed where an annotation gives no frequency, comma-separated.") var unknownShares = "0.5"
    @Option(help: "Likelihood ratio: discounts of a present finding the disease is not annotated with, comma-separated.")
    var unmatchedFactors = "\(LikelihoodRatioScoring.Parameters.standard.unmatchedFactor)"
    @Option(help: "Likelihood ratio: weights of an absent finding outside a disease's annotations, comma-separated.")
    var absentOutside = "\(LikelihoodRatioScoring.Parameters.standard.absentOutsideSpectrum)"
    @Option(help: "Likelihood ratio: weights of the similarity's p-value in the order, comma-separated.")
    var pValueWeights = "\(LikelihoodRatioScoring.Parameters.standard.pValueWeight)"
    @Flag(help: "Also rank with the rule that charges every annotated disease in full (no frequencies).") var withFlatRule = false
    @Option(help: "Disease sources ranked, comma-separated (e.g. OMIM); all when not given.") var sources: String?
    @Option(help: "Random queries per query size in the null distribution.") var samples = OntologyImportOptions().nullSampleCount
    @Option(
        help: "Which entries of different sources are scored as one disease: \(SourcePooling.allCases.map(\.rawValue).joined(separator: ", ")).",
        transform: PhenotypeAccuracyBench.poolingRule)
    var pooling = SourcePooling.current
    @Option(
        help: "Only explain each case of this disease (e.g. OMIM:148050) that ranks it below 10th, by likelihood ratio with the default parameters.")
    var explain: String?
    @Option(help: "Write each case's rank under each query to this TSV file (case, disease, query, rank).") var ranksOut: String?

    struct CaseFile: Decodable {
        struct Case: Decodable {
            let id: String
            let disease: String
            let present: [String]
            let excluded: [String]
        }
        let cases: [Case]
    }

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let ranker = try Self.asymmetricRanker(directory: directory, samples: samples, pooling: pooling)
        let kb = ranker.knowledgeBase
        let all = try JSONDecoder().decode(CaseFile.self, from: Data(contentsOf: URL(fileURLWithPath: cases))).cases
        let kept = all.filter { kb.diseaseIndex(of: $0.disease) != nil }
        print(
            String(
                format: "%d cases (%d with a disease the release holds); knowledge base and null distribution in %.1f s", all.count,
                kept.count, (clock.now - start).seconds))

        let ranked = sources.map { Set($0.split(separator: ",").map(String.init)) }
        if let explain {
            try explainMisses(of: explain, among: kept, ranker: ranker, sources: ranked)
            return
        }
        var variants: [(name: String, excluded: Bool, options: RankingOptions)] = [("present only", false, RankingOptions(sources: ranked))]
        for rho in Self.numbers(unmatchedFactors) {
            for r in Self.numbers(absentOutside) {
                for w in Self.numbers(pValueWeights) {
                    let parameters = LikelihoodRatioScoring.Parameters(unmatchedFactor: rho, absentOutsideSpectrum: r, pValueWeight: w)
                    let name = "likelihood ratio (rho \(rho), r \(r), p-value weight \(w))"
                    variants.append(
                        ("\(name), present only", false, RankingOptions(method: .likelihoodRatio, likelihoodRatio: parameters, sources: ranked)))
                    variants.append(
                        ("\(name), present + excluded", true, RankingOptions(method: .likelihoodRatio, likelihoodRatio: parameters, sources: ranked)))
                }
            }
        }
        if withFlatRule {
            variants.append(("excluded, flat (w 1)", true, RankingOptions(exclusionPenaltyWeight: 1, exclusionByFrequency: false, sources: ranked)))
        }
        for weight in Self.numbers(weights) {
            for share in Self.numbers(unknownShares) {
                for minimum in Self.numbers(minimumShares) {
                    variants.append(
                        (
                            "excluded, by frequency, w \(weight), unknown \(share), least \(minimum)", true,
                            RankingOptions(
                                exclusionPenaltyWeight: weight, exclusionByFrequency: true, unknownFrequencyShare: share,
                                exclusionMinimumShare: minimum, sources: ranked)
                        ))
                }
            }
        }
        print("| query | cases | top 1 | top 3 | top 10 | median rank | seconds |\n|---|---|---|---|---|---|---|")
        var rankLines = ["case\tdisease\tquery\trank"]
        for variant in variants {
            let began = clock.now
            let positions = Mutex([Int](repeating: Int.max, count: kept.count))
            DispatchQueue.concurrentPerform(iterations: ProcessInfo.processInfo.activeProcessorCount) { worker in
                let workers = ProcessInfo.processInfo.activeProcessorCount
                for i in stride(from: worker, to: kept.count, by: workers) {
                    let patient = kept[i]
                    let position = try? ranker.position(
                        of: patient.disease, terms: patient.present, excluding: variant.excluded ? patient.excluded : [],
                        options: variant.options)
                    positions.withLock { $0[i] = position ?? Int.max }
                }
            }
            let ranks = positions.withLock { $0 }
            // A case the ranker refused has no rank.
            for (patient, rank) in zip(kept, ranks) {
                rankLines.append("\(patient.id)\t\(patient.disease)\t\(variant.name)\t\(rank == Int.max ? "NA" : "\(rank)")")
            }
            let n = Double(ranks.count)
            func share(_ cut: Int) -> Double { Double(ranks.filter { $0 <= cut }.count) / n }
            let median = ranks.sorted()[ranks.count / 2]
            print(
                "| \(variant.name) | \(ranks.count) | "
                    + String(
                        format: "%.3f | %.3f | %.3f | %d | %.1f |", share(1), share(3), share(10), median, (clock.now - began).seconds))
        }
        if let ranksOut { try (rankLines.joined(separator: "\n") + "\n").write(toFile: ranksOut, atomically: true, encoding: .utf8) }
    }

    /// For each case of `disease` ranked below 10th (present + excluded findings, by likelihood ratio): where it ranks and
    /// the first three, then each finding's log10 ratio for the disease and for the first, and where each was read.
    func explainMisses(of disease: String, among kept: [CaseFile.Case], ranker: PhenotypeRanker, sources: Set<String>?) throws {
        let options = RankingOptions(method: .likelihoodRatio, maxResults: ranker.knowledgeBase.diseaseCount, sources: sources)
        func line(_ r: RankedDisease) -> String {
            "#\(r.rank) \(r.diseaseID) \(r.diseaseName.prefix(40)): log10 ratio "
                + String(format: "%.2f, p-value factor %.2f", r.likelihoodRatio?.log10Ratio ?? .nan, r.likelihoodRatio?.log10PValueFactor ?? .nan)
        }
        for patient in kept where patient.disease == disease {
            let result = try ranker.rank(terms: patient.present, excluding: patient.excluded, options: options)
            guard let mine = result.results.first(where: { $0.diseaseID == disease }), mine.rank > 10, let first = result.results.first
            else { continue }
            print("== \(patient.id) \(line(mine))")
            for r in result.results.prefix(3) { print("   " + line(r)) }
            for (f, g) in zip(mine.likelihoodRatio?.findings ?? [], first.likelihoodRatio?.findings ?? []) {
                print(
                    "   \(f.excluded ? "-" : "+") \(f.term.id) \(f.term.name.prefix(35)): "
                        + String(format: "%.2f at %@, first %.2f at %@", f.log10Ratio, f.readAt?.id ?? "none", g.log10Ratio, g.readAt?.id ?? "none"))
            }
        }
    }

    static func numbers(_ list: String) -> [Double] {
        list.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
