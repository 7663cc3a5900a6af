extension PhenotypeKnowledgeBase {
    /// Every disease's similarity to the query (`Float`, as the null distributions hold them).
    ///
    /// **Query → disease.** `max_{t∈D} IC(MICA(q, t))` is the information content of the most informative ancestor
    /// of `q` that some annotation of `D` lies under. So for each query term its ancestors are visited from the least
    /// to the most informative and each writes its information content over the diseases annotated under it
    /// (`diseasesUnder`): what is left in a disease's slot is its best match. About 21,000 writes per query term on the
    /// full release, against a look-up per annotation of every disease (253,000) in a term-by-term table.
    ///
    /// **Disease → query** (symmetric mode). `max_q IC(MICA(q, t))` does not depend on the disease, so it is tabled
    /// once per query for every term (`bestMatchByTerm`), then averaged over each disease's annotations.
    ///
    /// The sums run in the order the null-distribution builders use (query terms left to right, annotations in
    /// order), so a query scores here exactly, to the bit, as it did when it was drawn at random.
    func similarityScores(query: [Int32], mode: ScoringMode) -> [Float] {
        let diseaseCount = diseaseCount
        var sums = [Float](repeating: 0, count: diseaseCount)
        var best = [Float](repeating: 0, count: diseaseCount)
        var ancestors: [(value: Float, term: Int32)] = []
        ic.withUnsafeBufferPointer { ic in
            diseasesUnderOffsets.withUnsafeBufferPointer { offsets in
                diseasesUnder.withUnsafeBufferPointer { under in
                    best.withUnsafeMutableBufferPointer { best in
                        sums.withUnsafeMutableBufferPointer { sums in
                            for q in query {
                                ancestors.removeAll(keepingCapacity: true)
                                for a in ontology.ancestorSlice(Int(q)) where ic[Int(a)] > 0 {
                                    ancestors.append((ic[Int(a)], a))
                                }
                                // Least informative first, so the most informative write is the one that stays.
                                ancestors.sort { $0.value < $1.value }
                                best.update(repeating: 0)
                                for (value, a) in ancestors {
                                    for i in Int(offsets[Int(a)])..<Int(offsets[Int(a) &+ 1]) { best[Int(under[i])] = value }
                                }
                                for d in 0..<diseaseCount { sums[d] += best[d] }
                            }
                        }
                    }
                }
            }
        }
        let k = Float(query.count)
        var scores = sums
        for d in 0..<diseaseCount { scores[d] = sums[d] / k }
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
                        scores[d] = (scores[d] + diseaseToQuery) / 2
                    }
                }
            }
        }
        return scores
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

    /// Each query term's best match among `annotations` (ascending): the first annotation whose common ancestor with
    /// the term has the highest information content, and that ancestor (ties to the lower index), as reading
    /// `commonAncestors` annotation by annotation finds them. An ancestor several annotations share is read once, at the
    /// first of them: a later annotation takes a term's match only with a strictly higher value, which an ancestor read
    /// before cannot give it. The annotations of a disease share most of their ancestors, so this reads far fewer. Every
    /// ancestor of a query term that is also an annotation's goes into `shared`.
    func bestMatches(
        of annotations: ArraySlice<Int32>, _ kb: PhenotypeKnowledgeBase, into best: inout [(term: Int32, ancestor: Int32, value: Double)],
        shared: inout Ancestors
    ) {
        for t in annotations {
            for a in kb.ontology.ancestorSlice(Int(t)) {
                guard let row = row(of: a), !shared.contains(row: row) else { continue }
                shared.insert(row: row)
                let value = kb.ic64[Int(a)]
                // Annotations and their ancestors come in ascending index: a tie keeps the earlier.
                forEachQueryTerm(below: row) { i in if value > best[i].value { best[i] = (t, a, value) } }
            }
        }
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
