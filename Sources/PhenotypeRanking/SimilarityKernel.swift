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
///
/// The symmetric null-distribution builder scores every disease for each random query with it, taking for each
/// annotation the running maximum across the columns, which gives every query size at once. A ranking, one query and
/// one size, reads the diseases under each query term's ancestors instead (`PhenotypeKnowledgeBase.scores`);
/// both sum in the same order, so they agree to the bit.
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
        // The table as plain floats, term t's value in this column at `lane + 8 · t`: a lane picked at run time
        // from a SIMD8 value goes through memory, several times slower in this walk.
        let lane = column % Self.laneCount
        let blockStart = (column / Self.laneCount) * termCount * Self.laneCount
        ontology.childOffsets.withUnsafeBufferPointer { offsets in
            ontology.childList.withUnsafeBufferPointer { children in
                values.withUnsafeMutableBufferPointer { lanes in
                    lanes.withMemoryRebound(to: Float.self) { floats in
                        let v = UnsafeMutablePointer(floats.baseAddress! + blockStart + lane)
                        for (value, a) in order {
                            if v[Int(a) &* 8] > 0 { continue }
                            v[Int(a) &* 8] = value
                            stack.append(a)
                            while let x = stack.popLast() {
                                for c in Int(offsets[Int(x)])..<Int(offsets[Int(x) &+ 1]) {
                                    let child = Int(children[c])
                                    if v[child &* 8] == 0 {
                                        v[child &* 8] = value
                                        stack.append(Int32(truncatingIfNeeded: child))
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

/// Lane-wise maximum. The standard library's generic `pointwiseMax` is not vectorised (about
/// 12× slower in the null builder); comparison plus masked replace compiles to `maxps`.
@inline(__always)
func lanewiseMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var result = a
    result.replace(with: b, where: b .> a)
    return result
}

/// Running maximum across the lanes: `result[i] = max(x[0] … x[i])` (for `x ≥ 0`), in three
/// shift-and-max steps.
@inline(__always)
func prefixMax(_ x: SIMD8<Float>) -> SIMD8<Float> {
    var y = lanewiseMax(x, SIMD8(0, x[0], x[1], x[2], x[3], x[4], x[5], x[6]))
    y = lanewiseMax(y, SIMD8(0, 0, y[0], y[1], y[2], y[3], y[4], y[5]))
    return lanewiseMax(y, SIMD8(0, 0, 0, 0, y[0], y[1], y[2], y[3]))
}
