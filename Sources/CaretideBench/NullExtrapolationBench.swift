import ArgumentParser
import CaretideRuntime
import DiagnosisService
import Foundation
import PhenotypeRanking

/// How close the p-values of queries longer than the served null distribution's largest size come to exact ones: a
/// reference distribution sampled at every size up to 30 terms is built beside the served one (10 terms, as the import
/// builds it), and for every disease, size and tail probability, the score at which the reference's p-value falls to
/// that probability is read back from the served distribution, stretched (`NullDistribution`, "Longer queries") and,
/// for comparison, as it was read before (the size-10 distribution as it is). Asymmetric scoring only.
struct NullExtrapolationBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "null-extrapolation",
        abstract: "diagnosis-service: p-values of long queries read from the served null distribution, against exact ones.",
        discussion: "Needs hp.obo and phenotype.hpoa (scripts/fetch-hpo-release .hpo-data); no database.")

    @Option(help: "Folder holding hp.obo and phenotype.hpoa.") var directory: String
    @Option(help: "Random queries per size in the reference distribution (sizes 1 to 30).") var referenceSamples = 10_000
    @Option(help: "Query sizes compared, comma-separated.") var sizes = "10,12,15,20,25,30"
    @Option(help: "Tail probabilities compared, comma-separated.") var tails = "0.05,0.01,0.002"

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let kb = try PhenotypeKnowledgeBase(
            obo: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/hp.obo")),
            hpoa: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/phenotype.hpoa")))
        let defaults = OntologyImportOptions()
        let served = try NullDistribution.build(
            for: kb,
            options: NullDistributionOptions(
                scoring: .asymmetric, sampleCount: defaults.nullSampleCount, maxQuerySize: defaults.nullMaxQuerySize,
                binCount: defaults.nullBinCount, concurrency: defaults.concurrency))
        let largest = NullDistribution.extrapolationMeasuredUpTo
        // Another seed: the reference's queries are not the served distribution's.
        let reference = try NullDistribution.build(
            for: kb,
            options: NullDistributionOptions(
                scoring: .asymmetric, sampleCount: referenceSamples, maxQuerySize: largest, binCount: defaults.nullBinCount,
                seed: 0x5EED_0F_2E_F3, concurrency: defaults.concurrency))
        print(
            String(
                format: "%d diseases; served: %d samples per size 1-%d; reference: %d samples per size 1-%d; %.1f s",
                kb.diseaseCount, served.sampleCount, served.maxQuerySize, reference.sampleCount, largest, (clock.now - start).seconds))
        let sizes = self.sizes.split(separator: ",").compactMap { Int($0) }.filter { (1...largest).contains($0) }
        let tails = self.tails.split(separator: ",").compactMap { Double($0) }.filter { $0 > 0 && $0 < 1 }
        let binWidth = Double(served.maxScore) / Double(defaults.nullBinCount)
        let bins = defaults.nullBinCount
        print(
            "| terms | reference p | diseases | stretched: median \\|log10 ratio\\| | 90th | mean log10 ratio | within 2× | "
                + "as before: median | 90th | mean | within 2× |\n|---|---|---|---|---|---|---|---|---|---|---|")
        for size in sizes {
            for tail in tails {
                var stretched: [Double] = []
                var before: [Double] = []
                for d in 0..<kb.diseaseCount {
                    let referenceP = { (score: Double) in reference.pValue(diseaseIndex: d, querySize: size, score: score) }
                    // The lowest bin whose middle the reference gives a p-value at or below the tail: a binary search,
                    // as p falls with the score.
                    var low = 0
                    var high = bins - 1
                    guard referenceP((Double(high) + 0.5) * binWidth) <= tail else { continue }
                    if referenceP(0.5 * binWidth) <= tail { continue }  // no spread to compare: every random query scores alike
                    while low < high {
                        let middle = (low + high) / 2
                        if referenceP((Double(middle) + 0.5) * binWidth) <= tail { high = middle } else { low = middle + 1 }
                    }
                    let score = (Double(low) + 0.5) * binWidth
                    let exact = referenceP(score)
                    stretched.append(log10(served.pValue(diseaseIndex: d, querySize: size, score: score) / exact))
                    before.append(log10(served.pValue(diseaseIndex: d, querySize: min(size, served.maxQuerySize), score: score) / exact))
                }
                print("| \(size) | \(tail) | \(stretched.count) | \(Self.summary(stretched)) | \(Self.summary(before)) |")
            }
        }
        print(String(format: "total %.1f s", (clock.now - start).seconds))
    }

    /// Median and 90th percentile of the absolute log10 ratios, their mean (positive: the estimate is the larger, more
    /// cautious p-value), and the share within a factor of two.
    static func summary(_ ratios: [Double]) -> String {
        guard !ratios.isEmpty else { return "– | – | – | –" }
        let absolute = ratios.map(abs).sorted()
        // bounded: q is 0.5 or 0.9 of a count.
        let quantile = { (q: Double) in absolute[min(absolute.count - 1, Int((Double(absolute.count - 1) * q).rounded()))] }
        let mean = ratios.reduce(0, +) / Double(ratios.count)
        let within = Double(absolute.filter { $0 <= log10(2.0) }.count) / Double(absolute.count)
        return String(format: "%.3f | %.3f | %+.3f | %.3f", quantile(0.5), quantile(0.9), mean, within)
    }
}
