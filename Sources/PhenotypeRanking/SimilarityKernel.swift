/// How a query is compared with a disease (Köhler et al. 2009).
public enum ScoringMode: UInt8, Sendable, Hashable, CaseIterable {
    /// `sim(Q→D) = (1/|Q|) Σ_{q∈Q} max_{t∈D} IC(MICA(q, t))`: the paper's default, which does
    /// not penalise a disease for annotations the patient does not show.
    case asymmetric = 0
    /// `(sim(Q→D) + sim(D→Q)) / 2`.
    case symmetric = 1
}

/// For a query `q_0 … q_{k-1}`: `value(t, i) = IC(MICA(q_i, t))` for every term `t`.
///
/// Built once per query in `O(k · (T + E))`: the ancestors `a` of `q_i` are visited in
/// descending IC order and every not-yet-marked descendant of `a` is marked with `IC(a)`; a
/// node already marked was reached from a more informative ancestor, and so were all its
/// descendants, so the walk stops there. Each node is therefore marked once per query term,
/// with the IC of its most informative common ancestor with `q_i`. Ancestors with IC 0 (the
/// roots) are skipped because 0 is the default.
///
/// Layout: query columns are grouped in blocks of 8 lanes (`SIMD8<Float>`), block-major then
/// term-major, unused lanes 0 — scoring a disease is one vector `max` per annotation and block.
struct MatchTable {
    typealias Lanes = SIMD8<Float>
    static let laneCount = 8

    let width: Int
    let termCount: Int
    let blocks: Int
    private(set) var values: [Lanes]
    /// Scratch buffers reused across `mark` calls (moved out and back to avoid overlapping access).
    private var orderScratch: [(Float, Int32)] = []
    private var stackScratch: [Int32] = []

    init(termCount: Int, width: Int) {
        self.width = width
        self.termCount = termCount
        blocks = (width + Self.laneCount - 1) / Self.laneCount
        values = [Lanes](repeating: Lanes(), count: blocks * termCount)
    }

    init(knowledgeBase kb: PhenotypeKnowledgeBase, query: [Int32]) {
        self.init(termCount: kb.termCount, width: query.count)
        for (i, q) in query.enumerated() { mark(kb, term: q, column: i) }
    }

    mutating func reset() {
        values.withUnsafeMutableBufferPointer { $0.update(repeating: Lanes()) }
    }

    mutating func mark(_ kb: PhenotypeKnowledgeBase, term q: Int32, column: Int) {
        let ontology = kb.ontology
        var order = orderScratch
        var stack = stackScratch
        orderScratch = []
        stackScratch = []
        defer {
            order.removeAll(keepingCapacity: true)
            orderScratch = order
            stackScratch = stack
        }
        for a in ontology.ancestorSlice(Int(q)) where kb.ic[Int(a)] > 0 {
            order.append((kb.ic[Int(a)], a))
        }
        order.sort { $0.0 > $1.0 }
        let lane = column % Self.laneCount
        let base = (column / Self.laneCount) * termCount
        ontology.childOffsets.withUnsafeBufferPointer { offsets in
            ontology.childList.withUnsafeBufferPointer { children in
                values.withUnsafeMutableBufferPointer { v in
                    for (value, a) in order {
                        if v[base + Int(a)][lane] > 0 { continue }
                        v[base + Int(a)][lane] = value
                        stack.append(a)
                        while let x = stack.popLast() {
                            for c in Int(offsets[Int(x)])..<Int(offsets[Int(x) + 1]) {
                                let child = Int(children[c])
                                if v[base + child][lane] == 0 {
                                    v[base + child][lane] = value
                                    stack.append(Int32(child))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func value(term t: Int32, column i: Int) -> Float {
        values[(i / Self.laneCount) * termCount + Int(t)][i % Self.laneCount]
    }

    /// Scores every disease in the given mode. `O(k · annotations)`.
    ///
    /// The query→disease sum adds the columns left to right and the disease→query sum adds the
    /// annotations in order, exactly as the null-distribution builders do, so a query scores the
    /// same here as when it was drawn at random.
    func scoreAll(_ kb: PhenotypeKnowledgeBase, mode: ScoringMode, into scores: inout [Float]) {
        let w = width
        let blocks = blocks
        let termCount = termCount
        let diseaseCount = kb.diseaseCount
        if scores.count != diseaseCount { scores = [Float](repeating: 0, count: diseaseCount) }
        withUnsafeTemporaryAllocation(of: Lanes.self, capacity: blocks) { best in
            values.withUnsafeBufferPointer { v in
                kb.annotationOffsets.withUnsafeBufferPointer { offsets in
                    kb.annotationTerms.withUnsafeBufferPointer { terms in
                        scores.withUnsafeMutableBufferPointer { out in
                            for d in 0..<diseaseCount {
                                let lo = Int(offsets[d])
                                let hi = Int(offsets[d &+ 1])
                                var rowSum: Float = 0
                                if mode == .asymmetric {
                                    for b in 0..<blocks {
                                        let base = b &* termCount
                                        var acc = Lanes()
                                        for a in lo..<hi { acc = lanewiseMax(acc, v[base &+ Int(terms[a])]) }
                                        best[b] = acc
                                    }
                                } else {
                                    best.update(repeating: Lanes())
                                    for a in lo..<hi {
                                        let t = Int(terms[a])
                                        var row = Lanes()
                                        for b in 0..<blocks {
                                            let x = v[b &* termCount &+ t]
                                            best[b] = lanewiseMax(best[b], x)
                                            row = lanewiseMax(row, x)
                                        }
                                        rowSum += horizontalMax(row)
                                    }
                                }
                                var sum: Float = 0
                                for i in 0..<w { sum += best[i / 8][i % 8] }
                                let queryToDisease = sum / Float(w)
                                switch mode {
                                case .asymmetric:
                                    out[d] = queryToDisease
                                case .symmetric:
                                    let diseaseToQuery = hi > lo ? rowSum / Float(hi - lo) : 0
                                    out[d] = (queryToDisease + diseaseToQuery) / 2
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Lane-wise maximum. The standard library's generic `pointwiseMax` is not vectorised (about
/// 12× slower in this kernel); comparison plus masked replace compiles to `maxps`.
@inline(__always)
func lanewiseMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var result = a
    result.replace(with: b, where: b .> a)
    return result
}

/// Maximum of the eight lanes (a reduction tree; the generic `SIMD.max()` is a scalar loop).
@inline(__always)
func horizontalMax(_ x: SIMD8<Float>) -> Float {
    var half = x.lowHalf
    half.replace(with: x.highHalf, where: x.highHalf .> half)
    var quarter = half.lowHalf
    quarter.replace(with: half.highHalf, where: half.highHalf .> quarter)
    return max(quarter[0], quarter[1])
}

/// Running maximum across the lanes: `result[i] = max(x[0] … x[i])` (for `x ≥ 0`), in three
/// shift-and-max steps.
@inline(__always)
func prefixMax(_ x: SIMD8<Float>) -> SIMD8<Float> {
    var y = lanewiseMax(x, SIMD8(0, x[0], x[1], x[2], x[3], x[4], x[5], x[6]))
    y = lanewiseMax(y, SIMD8(0, 0, y[0], y[1], y[2], y[3], y[4], y[5]))
    return lanewiseMax(y, SIMD8(0, 0, 0, 0, y[0], y[1], y[2], y[3]))
}
