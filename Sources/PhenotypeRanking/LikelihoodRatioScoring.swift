import Foundation

/// Ranks diseases by how much more likely the patient's findings, present and absent, are in each disease than in
/// any disease: a likelihood ratio per finding, multiplied over the findings (summed as logarithms), in the manner of
/// LIRICAL (Robinson PN, Ravanmehr V, Jacobsen JOB, et al. "Interpretable clinical genomics with a likelihood ratio
/// paradigm." Am J Hum Genet 2020;107(3):403-17). Every disease has the same pre-test probability, so the post-test
/// probability of a disease is its ratio over the sum of all ranked diseases' ratios.
///
/// **A present finding `t`.** `f(d, t)` is the share of the disease's patients expected to show it: the highest
/// frequency (`AnnotationFrequency`) of the disease's annotations at or below `t` (a patient showing a more specific
/// finding shows `t` too), an annotation without a frequency read as 1 (`unknownShareIfPresent`: most older
/// annotations give none, and an annotation says the disease shows the finding). The background `b(t)` is the mean of
/// `f(d, t)` over all diseases. Then:
/// - the disease is annotated at or below `t`: `LR = f(d, t) / b(t)`;
/// - otherwise, the finding is read at the ancestor of `t` that gives the largest ratio, discounted by
///   `unmatchedFactor` (ρ = 0.04): the patient shows something more specific than, or beside, what the disease is
///   annotated with; an unrelated finding meets the phenotype root, whose ratio is about 1, and so costs about ρ.
///
/// **An absent finding `e`** (the clinician checked and did not find it). Case reports, and clinicians, record as
/// absent the features of the diseases they have in mind: the absence says the finding belongs to the spectrum the
/// clinician weighed, and, in proportion to how often the disease shows it, that this disease is less likely. So
/// `LR ∝ 1 − f(d, e)` for a disease annotated at or below `e` (no frequency given: 0.5, `unknownShareIfAbsent`;
/// `1 − f` at least `leastAbsentShare`, δ = 0.01, so an obligate feature that is absent divides the disease's ratio
/// by up to a hundred), and `LR ∝ r` (`absentOutsideSpectrum`, 0.03) for a disease not annotated with it, divided by
/// the mean over all diseases. An obligate feature absent is always the strongest evidence against a disease,
/// since `δ < r`: adding it never raises that disease. The values of ρ, r and δ were measured on published cases
/// (docs/clinical-rules.md §11), where charging the absence alone, as LIRICAL does, put the true disease lower.
///
/// **The order** reads `ln LR + w · (−log10 p)`, `p` the p-value of the present findings' similarity (the Phenomizer's,
/// `RankingOrdering.combined`), w = 4: how much better than random queries the findings fit the disease is evidence the
/// frequencies alone miss (a disease whose annotations give rare findings no frequency, a patient described less
/// precisely than the annotations). The weight is measured on published cases and simulated patients (§11); the
/// post-test probability is read from the same key, so it follows the order: each disease's weight is its ratio times
/// `(1/p)^(w / ln 10)`.
public enum LikelihoodRatioScoring {
    /// The share assumed for an annotation without a frequency, when the patient shows the finding.
    static let unknownShareIfPresent: Float = 1
    /// The share assumed for an annotation without a frequency, when the patient does not show the finding.
    static let unknownShareIfAbsent: Float = 0.5
    /// The least background share of a term some disease is annotated under.
    static let leastBackground = 1e-4
    /// The least ratio of one finding, so that no single finding can rule a disease out alone.
    static let leastRatio = 1e-6

    /// The constants of the scoring, measured on published cases (docs/clinical-rules.md §11); a benchmark varies them.
    public struct Parameters: Sendable, Hashable {
        /// ρ: the discount of a present finding the disease is not annotated at or below.
        public var unmatchedFactor: Double
        /// r: the weight of an absent finding for a disease not annotated at or below it.
        public var absentOutsideSpectrum: Double
        /// δ: the least `1 − f` of an absent finding the disease is annotated with; below `r`.
        public var leastAbsentShare: Double
        /// `w`: the order reads `ln LR + w · (−log10 p)`, the similarity's p-value as further evidence (0: the ratio
        /// alone).
        public var pValueWeight: Double

        public init(
            unmatchedFactor: Double = 0.04, absentOutsideSpectrum: Double = 0.03, leastAbsentShare: Double = 0.01, pValueWeight: Double = 4
        ) {
            self.pValueWeight = pValueWeight
            self.unmatchedFactor = unmatchedFactor
            self.absentOutsideSpectrum = absentOutsideSpectrum
            self.leastAbsentShare = leastAbsentShare
        }

        public static let standard = Parameters()
    }
}

/// How one finding weighed for one disease (`LikelihoodRatioScoring`).
public struct FindingRatio: Sendable, Hashable {
    /// The finding: present in the patient, or excluded (checked and absent).
    public let term: TermReference
    public let excluded: Bool
    /// Where the disease's annotations were read: the finding itself when the disease is annotated at or below it; for
    /// a present finding that is not, the ancestor whose ratio counted (discounted); nil for an excluded finding the
    /// disease is not annotated with.
    public let readAt: TermReference?
    /// The share of the disease's patients expected to show the term at `readAt` (nil without `readAt`).
    public let share: Double?
    /// log10 of the finding's likelihood ratio: above 0 speaks for the disease, below against it.
    public let log10Ratio: Double
}

/// A disease's likelihood ratio and what made it.
public struct LikelihoodRatioExplanation: Sendable, Hashable {
    /// log10 of the product of the findings' ratios.
    public let log10Ratio: Double
    /// log10 of the factor the similarity's p-value adds to the order: `w / ln 10 · (−log10 p)`.
    public let log10PValueFactor: Double
    /// The disease's share of the weights (ratio times p-value factor) of every ranked disease, with equal pre-test
    /// probabilities.
    public let posteriorProbability: Double
    /// The present findings in query order, then the excluded ones.
    public let findings: [FindingRatio]
}

extension PhenotypeKnowledgeBase {
    /// Where disease `d` sits among the diseases annotated at or below term `t` (`diseasesUnder` is ascending per term),
    /// nil when it is not among them: a binary search, so explaining an excluded finding reads what the search summed.
    func underPosition(disease d: Int, term t: Int32) -> Int? {
        let end = Int(diseasesUnderOffsets[Int(t) + 1])
        var low = Int(diseasesUnderOffsets[Int(t)])
        var high = end
        while low < high {
            let middle = (low + high) / 2
            if Int(diseasesUnder[middle]) < d { low = middle + 1 } else { high = middle }
        }
        return low < end && Int(diseasesUnder[low]) == d ? low : nil
    }

    /// The mean over all diseases of an absent finding's weight (`1 − f` where annotated, `r` elsewhere): what
    /// divides each disease's weight into its ratio.
    func absentBackground(_ e: Int32, parameters: LikelihoodRatioScoring.Parameters) -> Double {
        let range = Int(diseasesUnderOffsets[Int(e)])..<Int(diseasesUnderOffsets[Int(e) + 1])
        var sum = Double(diseaseCount - range.count) * parameters.absentOutsideSpectrum
        for at in range { sum += 1 - min(Double(underAbsentShares[at]), 1 - parameters.leastAbsentShare) }
        return sum / Double(diseaseCount)
    }

    /// Each finding's ratio for disease `d`: the values `scores(present:absent:mode:likelihoodRatio:)` summed, read
    /// back (the ratios in single precision, the expected shares recovered from them), with the absent findings'
    /// normalisation. `logRatio(a)` is the disease's log ratio at `a`, a present finding or one of its ancestors (its
    /// `underLogRatios` entry), nil when the disease is not annotated at or below `a`.
    func likelihoodRatioFindings(
        disease d: Int, present: [Int32], absent: [Int32], absentBackgrounds: [Double], parameters: LikelihoodRatioScoring.Parameters,
        reference: (Int32) -> TermReference, logRatio: (Int32) -> Float?
    ) -> [FindingRatio] {
        var findings: [FindingRatio] = []
        findings.reserveCapacity(present.count + absent.count)
        // Recovered from the ratio in single precision: held to 0...1 against its rounding.
        func share(_ ratio: Float, of term: Int32) -> Double { min(1, exp(Double(ratio)) * presentBackground[Int(term)]) }
        for t in present {
            if let own = logRatio(t) {
                findings.append(
                    FindingRatio(
                        term: reference(t), excluded: false, readAt: reference(t), share: share(own, of: t),
                        log10Ratio: max(Double(own) / log(10), log10(LikelihoodRatioScoring.leastRatio))))
                continue
            }
            var best: (term: Int32, ratio: Float)?
            for a in ontology.ancestorSlice(Int(t)) where a != t && inPhenotypeSubtree[Int(a)] {
                guard let ratio = logRatio(a) else { continue }
                // Of equal ratios, the more specific ancestor says more (else the lower index: the same choice every time).
                if let known = best, ratio < known.ratio || (ratio == known.ratio && !ontology.isAncestor(known.term, of: Int(a))) {
                    continue
                }
                best = (a, ratio)
            }
            let ratio = best.map { exp(Double($0.ratio)) } ?? 0
            findings.append(
                FindingRatio(
                    term: reference(t), excluded: false, readAt: best.map { reference($0.term) }, share: best.map { share($0.ratio, of: $0.term) },
                    log10Ratio: log10(max(ratio * parameters.unmatchedFactor, LikelihoodRatioScoring.leastRatio))))
        }
        for (e, background) in zip(absent, absentBackgrounds) {
            let share = underPosition(disease: d, term: e).map { Double(underAbsentShares[$0]) }
            let weight = share.map { 1 - min($0, 1 - parameters.leastAbsentShare) } ?? parameters.absentOutsideSpectrum
            findings.append(
                FindingRatio(
                    term: reference(e), excluded: true, readAt: share == nil ? nil : reference(e), share: share,
                    log10Ratio: log10(weight / background)))
        }
        return findings
    }
}
