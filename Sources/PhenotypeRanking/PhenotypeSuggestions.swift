import Foundation

/// A phenotype worth examining next because its presence or absence splits the leading
/// candidate diseases.
public struct PhenotypeSuggestion: Sendable, Hashable {
    public let term: TermReference
    public let informationContent: Double
    /// Binary entropy (bits) of the split of the candidates: 1 for an even split.
    public let splitEntropy: Double
    /// Candidates annotated with the term or a descendant, in ranking order.
    public let presentIn: [String]
    /// The other candidates, in ranking order.
    public let absentIn: [String]
}

extension PhenotypeRanker {
    /// Suggests phenotypes that best separate the top candidates of a ranking (the "next
    /// feature to examine" of Köhler et al. 2009).
    ///
    /// Rule: take the first `candidateCount` diseases of `result` (at most 64, and at most the
    /// number returned). Every phenotype term annotated (directly or through a descendant) to some
    /// but not all of them is a candidate, except terms already implied by the query (query terms
    /// and their ancestors), excluded terms and their descendants, and the phenotype root. Each term
    /// splits the candidates into "present" and "absent"; with `f` the present fraction, the split
    /// is scored by its binary entropy `H(f) = −f log₂ f − (1−f) log₂(1−f)` (each candidate weighed
    /// equally). Among terms inducing the same split only the most specific is kept (highest IC, then
    /// most ancestors, then lowest id), so the list is not a chain of ancestors of one finding. Order: entropy descending, then IC
    /// descending, then term id.
    public func suggestPhenotypes(
        after result: RankingResult, candidateCount: Int = 10, limit: Int = 10
    ) -> [PhenotypeSuggestion] {
        let kb = knowledgeBase
        let ontology = kb.ontology
        let candidates = Array(result.results.prefix(min(candidateCount, 64)))
        guard candidates.count >= 2, limit > 0 else { return [] }
        let full: UInt64 = candidates.count == 64 ? .max : (1 << UInt64(candidates.count)) - 1

        var known = [Bool](repeating: false, count: kb.termCount)
        for q in result.queryTerms {
            for a in ontology.ancestorSlice(q.index.int) { known[Int(a)] = true }
        }
        for e in result.excludedTerms { ontology.markDescendants(of: e.index.int, in: &known) }
        known[kb.phenotypeRoot.int] = true

        var masks = [UInt64](repeating: 0, count: kb.termCount)
        var touched: [Int32] = []
        for (bit, candidate) in candidates.enumerated() {
            let flag = UInt64(1) << UInt64(bit)
            for t in kb.annotationSlice(candidate.diseaseIndex) {
                for a in ontology.ancestorSlice(Int(t)) where masks[Int(a)] & flag == 0 {
                    if masks[Int(a)] == 0 { touched.append(a) }
                    masks[Int(a)] |= flag
                }
            }
        }
        // Most specific term per split: higher IC, then deeper (more ancestors), then lower id.
        func isMoreSpecific(_ a: Int32, than b: Int32) -> Bool {
            let icA = kb.ic[Int(a)]
            let icB = kb.ic[Int(b)]
            if icA != icB { return icA > icB }
            let depthA = ontology.ancestorSlice(Int(a)).count
            let depthB = ontology.ancestorSlice(Int(b)).count
            if depthA != depthB { return depthA > depthB }
            return ontology.termIDs[Int(a)] < ontology.termIDs[Int(b)]
        }
        var bestBySplit: [UInt64: Int32] = [:]
        for t in touched {
            let mask = masks[Int(t)]
            guard mask != full, !known[Int(t)], kb.inPhenotypeSubtree[Int(t)] else { continue }
            if let current = bestBySplit[mask] {
                if isMoreSpecific(t, than: current) { bestBySplit[mask] = t }
            } else {
                bestBySplit[mask] = t
            }
        }
        let total = Double(candidates.count)
        let scored = bestBySplit.map { mask, t -> (Double, Int32, UInt64) in
            let f = Double(mask.nonzeroBitCount) / total
            let h = -(f * log2(f) + (1 - f) * log2(1 - f))
            return (h, t, mask)
        }.sorted { x, y in
            if x.0 != y.0 { return x.0 > y.0 }
            if kb.ic[Int(x.1)] != kb.ic[Int(y.1)] { return kb.ic[Int(x.1)] > kb.ic[Int(y.1)] }
            return ontology.termIDs[Int(x.1)] < ontology.termIDs[Int(y.1)]
        }
        return scored.prefix(limit).map { h, t, mask in
            var present: [String] = []
            var absent: [String] = []
            for (bit, candidate) in candidates.enumerated() {
                if mask & (UInt64(1) << UInt64(bit)) != 0 {
                    present.append(candidate.diseaseID)
                } else {
                    absent.append(candidate.diseaseID)
                }
            }
            return PhenotypeSuggestion(
                term: reference(t), informationContent: Double(kb.ic[Int(t)]), splitEntropy: h,
                presentIn: present, absentIn: absent)
        }
    }
}
