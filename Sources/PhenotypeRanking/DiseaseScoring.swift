import Foundation

/// What one walk over the diseases under a query's terms gives: every disease's similarity, and its log likelihood
/// ratio when asked for (empty otherwise).
struct QueryScores {
    var similarity: [Float]
    var logRatios: [Float]
}

/// Whether a walk over the diseases under a query's terms reads the likelihood ratios too: a type, so that each walk
/// is compiled without the other's branch.
protocol DiseaseWalk { static var ratesFindings: Bool { get } }
enum SimilarityWalk: DiseaseWalk { static var ratesFindings: Bool { false } }
enum LikelihoodRatioWalk: DiseaseWalk { static var ratesFindings: Bool { true } }

/// The larger of two values, as one `maxss` (neither is NaN here).
@inline(__always)
func larger(_ a: Float, _ b: Float) -> Float { b > a ? b : a }

extension PhenotypeKnowledgeBase {
    /// Every disease's similarity to the query (`Float`, as the null distributions hold them).
    func similarityScores(query: [Int32], mode: ScoringMode) -> [Float] {
        scores(present: query, mode: mode).similarity
    }

    /// Every disease's similarity to the present findings, and with `likelihoodRatio`, its log likelihood ratio
    /// (natural logarithm) for the present and `absent` findings, up to one constant per query (the absent findings'
    /// normalisation, which changes no order).
    ///
    /// **Query → disease.** `max_{t∈D} IC(MICA(q, t))` is the information content of the most informative ancestor
    /// of `q` that some annotation of `D` lies under. So each ancestor of a query term keeps the larger of its
    /// information content and what a disease annotated under it holds (`diseasesUnder`): what is left in the disease's
    /// slot is its best match. The likelihood ratio reads the same diseases under the same ancestors
    /// (`LikelihoodRatioScoring`): per present finding, each disease's best ratio among the finding's ancestors, or the
    /// ratio of its own when it is annotated at or below the finding. The ancestors every present finding shares (the
    /// phenotype root at least, which holds nearly every disease) are read once per query, not once per finding: a
    /// maximum in another order is the same. Far fewer reads than a look-up per annotation of every disease in a
    /// term-by-term table.
    ///
    /// **Disease → query** (symmetric mode). `max_q IC(MICA(q, t))` does not depend on the disease, so it is tabled
    /// once per query for every term (`bestMatchByTerm`), then averaged over each disease's annotations.
    ///
    /// The sums run in the order the null-distribution builders use (query terms left to right, annotations in
    /// order), so a query scores here exactly, to the bit, as it did when it was drawn at random.
    func scores(
        present query: [Int32], absent: [Int32] = [], mode: ScoringMode, likelihoodRatio parameters: LikelihoodRatioScoring.Parameters? = nil
    ) -> QueryScores {
        var scores =
            parameters.map { walk(LikelihoodRatioWalk.self, present: query, parameters: $0) }
            ?? walk(SimilarityWalk.self, present: query, parameters: .standard)
        if let parameters {
            let logOutside = Float(log(parameters.absentOutsideSpectrum))
            for e in absent {
                for at in Int(diseasesUnderOffsets[Int(e)])..<Int(diseasesUnderOffsets[Int(e) + 1]) {
                    scores.logRatios[Int(diseasesUnder[at])] +=
                        log(1 - min(underAbsentShares[at], Float(1 - parameters.leastAbsentShare))) - logOutside
                }
            }
        }
        guard mode == .symmetric else { return scores }
        let byTerm = bestMatchByTerm(query: query)
        byTerm.withUnsafeBufferPointer { byTerm in
            annotationOffsets.withUnsafeBufferPointer { offsets in
                annotationTerms.withUnsafeBufferPointer { terms in
                    for d in 0..<diseaseCount {
                        let lo = Int(offsets[d])
                        let hi = Int(offsets[d &+ 1])
                        var sum: Float = 0
                        for a in lo..<hi { sum += byTerm[Int(terms[a])] }
                        let diseaseToQuery = hi > lo ? sum / Float(hi - lo) : 0
                        scores.similarity[d] = (scores.similarity[d] + diseaseToQuery) / 2
                    }
                }
            }
        }
        return scores
    }

    /// The query → disease similarity of every disease, and with `W` the present findings' log likelihood ratios.
    ///
    /// A finding's ancestors are read from the least to the most informative, so an ancestor at least as informative as
    /// every shared one simply writes its information content (what it overwrites is never more); a less informative
    /// one keeps the larger of the two.
    private func walk<W: DiseaseWalk>(_: W.Type, present query: [Int32], parameters: LikelihoodRatioScoring.Parameters) -> QueryScores {
        let count = diseaseCount
        // A term above the phenotype root has information content 0 and holds the root's diseases with its ratios: it
        // changes no maximum.
        let ancestry = query.map { q in
            ontology.ancestorSlice(Int(q)).filter { $0 != q && (inPhenotypeSubtree[Int($0)] || ic[Int($0)] > 0) }
                .sorted { ic[Int($0)] < ic[Int($1)] }
        }
        let shared = ancestry.dropFirst().reduce(Set(ancestry.first ?? [])) { $0.intersection($1) }
        let sharedTop = shared.map { ic[Int($0)] }.max() ?? 0
        let ratioCount = W.ratesFindings ? count : 0
        var sums = [Float](repeating: 0, count: count)
        var sharedBest = [Float](repeating: 0, count: count)
        var best = [Float](repeating: 0, count: count)
        var totals = [Float](repeating: 0, count: ratioCount)
        // Per present finding, each disease's best ratio among the finding's ancestors; +∞ marks a disease annotated at
        // or below the finding itself, whose own ratio is already counted.
        var sharedRatio = [Float](repeating: -.infinity, count: ratioCount)
        var related = [Float](repeating: -.infinity, count: ratioCount)
        let logDiscount = Float(log(parameters.unmatchedFactor))
        let logLeast = Float(log(LikelihoodRatioScoring.leastRatio))
        ic.withUnsafeBufferPointer { ic in
            diseasesUnderOffsets.withUnsafeBufferPointer { offsets in
                diseasesUnder.withUnsafeBufferPointer { under in
                    underLogRatios.withUnsafeBufferPointer { ratios in
                        sums.withUnsafeMutableBufferPointer { sums in
                            best.withUnsafeMutableBufferPointer { best in
                                related.withUnsafeMutableBufferPointer { related in
                                    totals.withUnsafeMutableBufferPointer { totals in
                                        sharedBest.withUnsafeMutableBufferPointer { sharedBest in
                                            sharedRatio.withUnsafeMutableBufferPointer { sharedRatio in
                                                @inline(__always)
                                                func read(
                                                    _ a: Int32, _ best: UnsafeMutableBufferPointer<Float>,
                                                    _ related: UnsafeMutableBufferPointer<Float>,
                                                    overwriting: Bool
                                                ) {
                                                    let value = ic[Int(a)]
                                                    for at in Int(offsets[Int(a)])..<Int(offsets[Int(a) &+ 1]) {
                                                        let d = Int(under[at])
                                                        best[d] = overwriting ? value : larger(best[d], value)
                                                        if W.ratesFindings { related[d] = larger(related[d], ratios[at]) }
                                                    }
                                                }
                                                for a in shared { read(a, sharedBest, sharedRatio, overwriting: false) }
                                                _ = best.update(fromContentsOf: sharedBest)
                                                _ = related.update(fromContentsOf: sharedRatio)
                                                for (q, above) in zip(query, ancestry) {
                                                    for a in above where !shared.contains(a) {
                                                        read(a, best, related, overwriting: ic[Int(a)] >= sharedTop)
                                                    }
                                                    // A term is at least as informative as its ancestors.
                                                    let own = ic[Int(q)]
                                                    for at in Int(offsets[Int(q)])..<Int(offsets[Int(q) &+ 1]) {
                                                        let d = Int(under[at])
                                                        best[d] = own
                                                        if W.ratesFindings {
                                                            totals[d] += larger(ratios[at], logLeast)
                                                            related[d] = .infinity
                                                        }
                                                    }
                                                    // Every disease, without a branch (so in vector registers); then the next finding
                                                    // starts from the shared ancestors.
                                                    for d in 0..<count {
                                                        sums[d] += best[d]
                                                        best[d] = sharedBest[d]
                                                    }
                                                    guard W.ratesFindings else { continue }
                                                    // A ratio of its own already counted adds nothing here.
                                                    for d in 0..<count {
                                                        let ratio = related[d]
                                                        totals[d] += ratio == .infinity ? 0 : larger(logDiscount + ratio, logLeast)
                                                        related[d] = sharedRatio[d]
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let k = Float(query.count)
        for d in 0..<count { sums[d] /= k }
        return QueryScores(similarity: sums, logRatios: totals)
    }

    /// `max_q IC(MICA(q, t))` for every term `t`: the ancestors of all query terms, most informative first, each
    /// marking its descendants not yet marked (a node already marked was reached from a more informative ancestor,
    /// and so were its descendants, so the walk stops there).
    func bestMatchByTerm(query: [Int32]) -> [Float] {
        var ancestors: [(value: Float, term: Int32)] = []
        for q in query {
            for a in ontology.ancestorSlice(Int(q)) where ic[Int(a)] > 0 { ancestors.append((ic[Int(a)], a)) }
        }
        ancestors.sort { $0.value > $1.value }
        var marks = [Float](repeating: 0, count: termCount)
        var stack: [Int32] = []
        ontology.childOffsets.withUnsafeBufferPointer { offsets in
            ontology.childList.withUnsafeBufferPointer { children in
                marks.withUnsafeMutableBufferPointer { marks in
                    for (value, a) in ancestors where marks[Int(a)] == 0 {
                        marks[Int(a)] = value
                        stack.append(a)
                        while let x = stack.popLast() {
                            for c in Int(offsets[Int(x)])..<Int(offsets[Int(x) &+ 1]) {
                                let child = Int(children[c])
                                if marks[child] == 0 {
                                    marks[child] = value
                                    stack.append(Int32(truncatingIfNeeded: child))
                                }
                            }
                        }
                    }
                }
            }
        }
        return marks
    }
}

/// Which query terms each term is an ancestor of, for the exact scores and explanations of the reported diseases: the
/// common ancestors of a query term and an annotation are the annotation's ancestors whose bit for that query term is
/// set, so one walk up each annotation serves every query term.
///
/// Only the query terms' ancestors have bits (tens of terms of the ontology's thousands), so their masks are kept in
/// ascending term order (`masks[row · words + w]`, bit `i` for query term `i`), and a bit per ontology term says
/// which terms have one: the walk up an annotation reads that bit for most of its ancestors, in a table small enough
/// to stay in the processor's nearest cache. A term's row is the number of such terms before it: the count of the
/// words before its word, plus the bits below it in its own.
struct QueryAncestry {
    let words: Int
    let hasRow: [UInt64]
    let rowsBefore: [Int32]
    let masks: [UInt64]
    let rowCount: Int

    init(knowledgeBase kb: PhenotypeKnowledgeBase, query: [Int32]) {
        let words = (query.count + 63) / 64
        var hasRow = [UInt64](repeating: 0, count: (kb.termCount + 63) / 64)
        for q in query {
            for a in kb.ontology.ancestorSlice(Int(q)) { hasRow[Int(a) / 64] |= 1 << UInt64(Int(a) % 64) }
        }
        var rowsBefore = [Int32](repeating: 0, count: hasRow.count)
        var rows: Int32 = 0
        for w in hasRow.indices {
            rowsBefore[w] = rows
            rows += Int32(hasRow[w].nonzeroBitCount)
        }
        var masks = [UInt64](repeating: 0, count: Int(rows) * words)
        for (i, q) in query.enumerated() {
            for a in kb.ontology.ancestorSlice(Int(q)) {
                masks[Self.row(of: Int(a), hasRow, rowsBefore) * words + i / 64] |= 1 << UInt64(i % 64)
            }
        }
        self.words = words
        self.hasRow = hasRow
        self.rowsBefore = rowsBefore
        self.masks = masks
        self.rowCount = Int(rows)
    }

    /// A set of the query terms' ancestors, a bit per row.
    struct Ancestors {
        var bits: [UInt64]

        func contains(row: Int) -> Bool { bits[row / 64] & (1 << UInt64(row % 64)) != 0 }
        mutating func insert(row: Int) { bits[row / 64] |= 1 << UInt64(row % 64) }
    }

    var noAncestors: Ancestors { Ancestors(bits: [UInt64](repeating: 0, count: (rowCount + 63) / 64)) }

    /// Whether `a` is an ancestor of a query term (itself included) that is in `set`.
    func contains(_ a: Int32, in set: Ancestors) -> Bool {
        row(of: a).map(set.contains(row:)) ?? false
    }

    @inline(__always)
    static func row(of a: Int, _ hasRow: [UInt64], _ rowsBefore: [Int32]) -> Int {
        Int(rowsBefore[a / 64]) + (hasRow[a / 64] & ((1 << UInt64(a % 64)) &- 1)).nonzeroBitCount
    }

    /// Each query term's best match among disease `d`'s annotations: the first annotation whose common ancestor with
    /// the term has the highest information content, and that ancestor (ties to the lower index), as reading
    /// `commonAncestors` annotation by annotation finds them. Each ancestor is read once, at the first annotation that
    /// has it (`firstAncestors`): a later annotation takes a term's match only with a strictly higher value, which an
    /// ancestor read before cannot give it. Every ancestor of a query term that is also an annotation's goes into
    /// `shared`.
    func bestMatches(
        of d: Int, _ kb: PhenotypeKnowledgeBase, into best: inout [(term: Int32, ancestor: Int32, value: Double)], shared: inout Ancestors
    ) {
        for position in Int(kb.annotationOffsets[d])..<Int(kb.annotationOffsets[d + 1]) {
            let t = kb.annotationTerms[position]
            for a in kb.firstAncestors[Int(kb.firstAncestorStarts[position])..<Int(kb.firstAncestorStarts[position + 1])] {
                guard let row = row(of: a) else { continue }
                shared.insert(row: row)
                let value = kb.ic64[Int(a)]
                // Annotations and their ancestors come in ascending index: a tie keeps the earlier.
                forEachQueryTerm(below: row) { i in if value > best[i].value { best[i] = (t, a, value) } }
            }
        }
    }

    /// Disease `d`'s log ratio at `a` (`underLogRatios`), an ancestor of a query term or one itself, when `shared`,
    /// the disease's ancestors among the query's, holds it; nil otherwise. The set spares the search under every
    /// ancestor the disease is not under.
    func logRatio(of d: Int, at a: Int32, in shared: Ancestors, _ kb: PhenotypeKnowledgeBase) -> Float? {
        guard contains(a, in: shared), let at = kb.underPosition(disease: d, term: a) else { return nil }
        return kb.underLogRatios[at]
    }

    /// For annotation `t`, each query term's most informative common ancestor with it and its information content
    /// in full precision (ties to the lower ancestor index); `(-1, 0)` where they share none. Every ancestor of a query
    /// term that is also one of `t`'s goes into `shared`.
    func commonAncestors(
        of t: Int32, _ kb: PhenotypeKnowledgeBase, into best: inout [(term: Int32, value: Double)], shared: inout Ancestors
    ) {
        for i in best.indices { best[i] = (-1, 0) }
        for a in kb.ontology.ancestorSlice(Int(t)) {
            guard let row = row(of: a) else { continue }
            shared.insert(row: row)
            let value = kb.ic64[Int(a)]
            // Ancestors come in ascending index, so a tie keeps the lower index.
            forEachQueryTerm(below: row) { i in if best[i].term < 0 || value > best[i].value { best[i] = (a, value) } }
        }
    }

    /// The row of `a` when it is an ancestor of a query term (or one itself), else nil.
    @inline(__always)
    func row(of a: Int32) -> Int? {
        hasRow[Int(a) / 64] & (1 << UInt64(Int(a) % 64)) != 0 ? Self.row(of: Int(a), hasRow, rowsBefore) : nil
    }

    /// Calls `body` with the position in the query of each term the ancestor at `row` is an ancestor of (or is).
    @inline(__always)
    func forEachQueryTerm(below row: Int, _ body: (Int) -> Void) {
        for w in 0..<words {
            var bits = masks[row * words + w]
            while bits != 0 {
                body(w * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }
}
