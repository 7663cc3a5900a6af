import Foundation

/// How the diseases of one query are put in order, from their scores and their p-values (the null's survival
/// counts). Every ordering ends in the disease index (id order), so it is total and deterministic.
///
/// Ordering by p-value alone puts a disease whose score is high but whose p-value is middling (a disease with many
/// annotations, which random queries also match well) below diseases that fit the query worse; ordering by score
/// alone forgets that. The candidates are measured on simulated patients (`caretide-bench phenotype-accuracy`) and
/// the choice is recorded in docs/clinical-rules.md §11.
public enum RankingOrdering: Sendable, Hashable, CustomStringConvertible {
    /// p-value ascending, then score descending (the order before p-values led).
    case pValueThenScore
    /// Score descending alone: the raw-score reference.
    case score
    /// Score descending, then p-value ascending.
    case scoreThenPValue
    /// `score + weight · (−log10 p)` descending, then p-value, then score: the p-value as evidence added to the score.
    case combined(weight: Double)
    /// p-values at or below `floor` count as equal (all "significant"), then score descending: the p-value separates
    /// what random queries also match from what they do not, and the score orders what is left.
    case pValueFloorThenScore(floor: Double)

    /// The ordering the service ranks with (chosen by the measurements in docs/clinical-rules.md §11).
    public static let standard = RankingOrdering.combined(weight: 1.5)

    public var description: String {
        switch self {
        case .pValueThenScore: "p-value, then score"
        case .score: "score (raw-score reference)"
        case .scoreThenPValue: "score, then p-value"
        case .combined(let weight): "score + \(weight) × −log10(p)"
        case .pValueFloorThenScore(let floor): "p-value floored at \(floor), then score"
        }
    }

    /// Whether disease `a` comes before disease `b` in one query's ranking.
    func before(_ a: Int, _ b: Int, _ ranking: OrderingInput) -> Bool {
        let (sa, sb) = (ranking.scores[a], ranking.scores[b])
        let (ca, cb) = (ranking.survival[a], ranking.survival[b])
        switch self {
        case .pValueThenScore:
            if ca != cb { return ca < cb }
            if sa != sb { return sa > sb }
        case .score:
            if sa != sb { return sa > sb }
        case .scoreThenPValue:
            if sa != sb { return sa > sb }
            if ca != cb { return ca < cb }
        case .combined(let weight):
            let ka = Double(sa) + weight * ranking.evidence[Int(ca)]
            let kb = Double(sb) + weight * ranking.evidence[Int(cb)]
            if ka != kb { return ka > kb }
            if ca != cb { return ca < cb }
            if sa != sb { return sa > sb }
        case .pValueFloorThenScore(let floor):
            // Survival counts whose p-value, (c + 1) / (N + 1), is at or below the floor count as one.
            // bounded: the floor is a p-value the request's schema holds in 0...1, times the null sample's size.
            let limit = UInt32(max(0, (floor * Double(ranking.evidence.count)).rounded(.down) - 1))
            let (fa, fb) = (max(ca, limit), max(cb, limit))
            if fa != fb { return fa < fb }
            if sa != sb { return sa > sb }
            if ca != cb { return ca < cb }
        }
        return a < b
    }

    /// The 1-based position of disease `d` among all diseases.
    func position(of d: Int, _ ranking: OrderingInput) -> Int {
        var position = 1
        for other in ranking.scores.indices where other != d && ranking.includes(other) && before(other, d, ranking) { position += 1 }
        return position
    }

    /// Each disease's key in a `.combined` order, `score + weight · evidence`; nil for the other orders. Computed once
    /// per query: the top diseases are chosen by it, and a likelihood-ratio answer's post-test probabilities are its
    /// exponentials.
    func keys(_ ranking: OrderingInput) -> [Double]? {
        guard case .combined(let weight) = self else { return nil }
        let (scores, survival, evidence) = (ranking.scores, ranking.survival, ranking.evidence)
        return [Double](unsafeUninitializedCapacity: scores.count) { keys, count in
            for d in scores.indices { keys[d] = Double(scores[d]) + weight * evidence[Int(survival[d])] }
            count = scores.count
        }
    }

    /// The first `limit` diseases in this order: one pass keeping the best `limit` in order, so a disease that does
    /// not beat the last one kept costs one comparison. `keys` are this order's `keys(ranking)`, if it has them.
    func top(_ limit: Int, _ ranking: OrderingInput, keys: [Double]? = nil) -> [Int32] {
        guard limit > 0 else { return [] }
        if case .combined = self { return topCombined(limit, keys: keys ?? self.keys(ranking)!, ranking) }
        var kept: [Int] = []
        kept.reserveCapacity(limit + 1)
        for d in ranking.scores.indices where ranking.includes(d) {
            if kept.count == limit, let last = kept.last, !before(d, last, ranking) { continue }
            let at = kept.firstIndex { before(d, $0, ranking) } ?? kept.count
            kept.insert(d, at: at)
            if kept.count > limit { kept.removeLast() }
        }
        return kept.map(Int32.init)
    }

    /// `top` of `.combined`, on the ranking path of every request: one comparison against the last key kept for nearly
    /// every disease (the full order only breaks ties).
    private func topCombined(_ limit: Int, keys: [Double], _ ranking: OrderingInput) -> [Int32] {
        var kept: [Int] = []
        kept.reserveCapacity(limit + 1)
        // The key of the last disease kept once `limit` are: a disease below it is passed over on one comparison.
        var least = -Double.infinity
        keys.withUnsafeBufferPointer { keys in
            for d in keys.indices where keys[d] >= least && ranking.includes(d) {
                if kept.count == limit, let last = kept.last, keys[d] == least, !before(d, last, ranking) { continue }
                let at = kept.firstIndex { other in keys[d] > keys[other] || (keys[d] == keys[other] && before(d, other, ranking)) } ?? kept.count
                kept.insert(d, at: at)
                if kept.count > limit { kept.removeLast() }
                if kept.count == limit { least = keys[kept[limit - 1]] }
            }
        }
        return kept.map(Int32.init)
    }
}

/// What an ordering reads of one query's ranking: each disease's score and survival count (null scores at least as
/// high), and the evidence of each survival count, −log10 of its p-value (c + 1) / (N + 1), tabled once per null
/// distribution so no ordering computes a logarithm per disease.
struct OrderingInput {
    let scores: [Float]
    let survival: [UInt32]
    let evidence: [Double]
    /// The diseases that take part (those of the sources asked for); nil for all.
    var included: [Bool]? = nil

    func includes(_ d: Int) -> Bool { included?[d] ?? true }

    /// −log10((c + 1) / (N + 1)) for every survival count c in 0...N.
    static func evidence(sampleCount: Int) -> [Double] {
        let n = Double(sampleCount + 1)
        return (0...sampleCount).map { -log10((Double($0) + 1) / n) }
    }
}
