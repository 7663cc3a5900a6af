import Foundation

/// How the null distribution of similarity scores is sampled.
public struct NullDistributionOptions: Sendable, Hashable {
    /// The scoring mode the distribution is for; a ranking in the other mode needs its own.
    public var scoring: ScoringMode
    /// `N`: random queries per query size, at most 65,535 (survival counts are stored as
    /// `UInt16`). Köhler et al. (2009) used 100,000; 10,000 resolves p-values down to 1/10,001.
    public var sampleCount: Int
    /// Query sizes `1...maxQuerySize` get a distribution; larger queries use the largest one.
    public var maxQuerySize: Int
    /// Number of equal-width score bins over `[0, ln D]` (2...65,535).
    public var binCount: Int
    /// Seed of the ``Xoshiro256StarStar`` generator that draws the random queries.
    public var seed: UInt64
    /// Worker threads for the build (the result does not depend on it).
    public var concurrency: Int

    public init(
        scoring: ScoringMode = .asymmetric, sampleCount: Int = 10_000, maxQuerySize: Int = 10,
        binCount: Int = 1024, seed: UInt64 = 0x00C0_FFEE_5EED, concurrency: Int = 1
    ) {
        self.scoring = scoring
        self.sampleCount = sampleCount
        self.maxQuerySize = maxQuerySize
        self.binCount = binCount
        self.seed = seed
        self.concurrency = concurrency
    }
}

/// The per-disease null distribution of similarity scores, from which p-values are read —
/// the statistical model of Köhler S, Schulz MH, Krawitz P, et al. "Clinical diagnostics in
/// human genetics with semantic similarity searches in ontologies." Am J Hum Genet
/// 2009;85(4):457-64.
///
/// **Sampling.** For each query size `k = 1…K`, `N` random queries of `k` distinct terms are
/// drawn uniformly (without replacement within a query) from the current terms strictly below
/// the phenotype root HP:0000118 — every phenotypic-abnormality term has the same chance,
/// whether or not a disease is annotated to it, as in the paper's random-query model. The
/// queries of size `k` are the first `k` terms of `N` random sequences of `K` distinct terms, so
/// one pass serves every size: for each fixed `k` they are `N` independent uniform `k`-subsets
/// (queries of different sizes are correlated, which is irrelevant because a p-value only ever
/// reads the distribution of its own size). Every random query is scored against every disease.
///
/// **p-value.** `p = (#{null scores ≥ observed} + 1) / (N + 1)` — the add-one estimate, which is
/// never 0 and is a valid (slightly conservative) p-value for a Monte-Carlo null.
///
/// **Longer queries.** Sizes beyond `K` read the size-`K` distribution. In asymmetric scoring a query's score is the
/// mean, over its terms, of each term's best match in the disease, so a random query's score is the mean of `k` draws
/// from one distribution (the disease's best-match IC over the sampled terms; drawn without replacement from thousands
/// of terms, near enough independent): its expectation does not depend on `k` and its spread shrinks as `1/√k`. A
/// score `x` of a `k`-term query is therefore read at `μ + (x − μ)·√(k/K)` on the size-`K` distribution, `μ` being
/// that distribution's mean for the disease. The size-`K` distribution is more skewed than a longer query's, so in
/// the upper tail this errs towards larger (more cautious) p-values; `caretide-bench null-extrapolation` measures it
/// against exact distributions up to ``extrapolationMeasuredUpTo`` terms. Symmetric scoring also averages over the
/// disease's annotations each query term may match, which rises with `k`: no such stretch holds, and longer queries
/// read the size-`K` distribution as they are (with a warning).
///
/// **Storage.** Scores are binned into `binCount` equal-width bins over `[0, ln D]` (the largest
/// possible IC). For each disease and query size only the survival counts
/// `S[b] = #{null scores in bins ≥ b}` between the lowest and highest occupied bin are kept
/// (`UInt16` each; below the range `S = N`, above it `S = 0`). The observed score is binned
/// after subtracting 1e-4, so null scores equal to it always count as `≥`; null scores in the
/// observed score's bin but below it also count, which makes the p-value conservative by at
/// most one bin width (`ln D / binCount`, ≈ 0.009 nats for the full release at 1,024 bins).
/// Memory is `2 bytes × Σ range widths + 8 bytes × D × K`; see ``byteCount``.
///
/// **Serialised form** (``encoded()``, little-endian): magic `PRNL`, format version `u16` = 1,
/// scoring `u8`, reserved `u8`, sample count `u32`, max query size `u16`, bin count `u16`,
/// seed `u64`, knowledge-base fingerprint `u64`, disease count `u32`, max score `f32`; then for
/// each disease (in knowledge-base order) and each size `1…K`: LEB128 varints `lowestBin`,
/// `width`, and `width` per-bin counts (the histogram, not the survival counts); then an FNV-1a
/// 64 checksum `u64` of everything before it.
public struct NullDistribution: Sendable, Hashable {
    struct Range: Sendable, Hashable {
        var start: UInt32
        var lowestBin: UInt16
        var width: UInt16
    }

    public static let maxSampleCount = Int(UInt16.max)

    public let scoring: ScoringMode
    public let sampleCount: Int
    public let maxQuerySize: Int
    public let binCount: Int
    public let seed: UInt64
    /// ``PhenotypeKnowledgeBase/fingerprint`` of the data the distribution was built from.
    public let fingerprint: UInt64
    public let diseaseCount: Int
    /// Upper end of the binned score range (`ln D`).
    public let maxScore: Float
    /// `ranges[(k - 1) · D + d]`, and `survival` in the same order: size-major, so the look-ups of one query (one
    /// size, every disease in turn) walk forwards through one size's counts instead of striding through all of them
    /// (a cache miss per disease).
    let ranges: [Range]
    let survival: [UInt16]
    private let scale: Float
    /// Each disease's mean null score at the largest size, `K` (from its binned counts): the centre about which
    /// `survivalCounts` stretches a longer query's score (see "Longer queries" in the type documentation). Empty in
    /// symmetric scoring, which does not stretch.
    let largestSizeMeans: [Float]

    /// The largest query size whose p-values the size-`K` distribution's stretch was measured against exact null
    /// distributions for (`caretide-bench null-extrapolation`): up to it, a ranking carries no warning.
    public static let extrapolationMeasuredUpTo = 30

    static let observedScoreMargin: Float = 1e-4

    /// From ranges and counts in disease-major order (`ranges[d · K + k - 1]`), as the builders make them.
    init(
        scoring: ScoringMode, sampleCount: Int, maxQuerySize: Int, binCount: Int, seed: UInt64,
        fingerprint: UInt64, diseaseCount: Int, maxScore: Float, ranges: [Range], survival: [UInt16]
    ) {
        var sizeMajor: [Range] = []
        sizeMajor.reserveCapacity(ranges.count)
        var counts: [UInt16] = []
        counts.reserveCapacity(survival.count)
        for k in 0..<maxQuerySize {
            for d in 0..<diseaseCount {
                let range = ranges[d * maxQuerySize + k]
                let start = Int(range.start)
                sizeMajor.append(Range(start: UInt32(counts.count), lowestBin: range.lowestBin, width: range.width))
                counts.append(contentsOf: survival[start..<(start + Int(range.width))])
            }
        }
        self.init(
            scoring: scoring, sampleCount: sampleCount, maxQuerySize: maxQuerySize, binCount: binCount, seed: seed,
            fingerprint: fingerprint, diseaseCount: diseaseCount, maxScore: maxScore, sizeMajorRanges: sizeMajor,
            survival: counts)
    }

    init(
        scoring: ScoringMode, sampleCount: Int, maxQuerySize: Int, binCount: Int, seed: UInt64,
        fingerprint: UInt64, diseaseCount: Int, maxScore: Float, sizeMajorRanges ranges: [Range], survival: [UInt16]
    ) {
        self.scoring = scoring
        self.sampleCount = sampleCount
        self.maxQuerySize = maxQuerySize
        self.binCount = binCount
        self.seed = seed
        self.fingerprint = fingerprint
        self.diseaseCount = diseaseCount
        self.maxScore = maxScore
        self.ranges = ranges
        self.survival = survival
        scale = Self.scale(binCount: binCount, maxScore: maxScore)
        // Only asymmetric scoring stretches a longer query's score (`scoreOnLargestSize`).
        largestSizeMeans =
            scoring == .asymmetric
            ? Self.means(
                ranges: ranges[((maxQuerySize - 1) * diseaseCount)..<(maxQuerySize * diseaseCount)], survival: survival,
                sampleCount: sampleCount, scale: scale) : []
    }

    /// Each range's mean score, from its survival counts: with `S(b)` the number of scores in bins `≥ b`, the mean bin
    /// is `Σ_{b≥1} S(b) / N` (below the range `S = N`), and a bin's scores are taken at its middle.
    static func means(ranges: ArraySlice<Range>, survival: [UInt16], sampleCount: Int, scale: Float) -> [Float] {
        let n = Double(max(sampleCount, 1))
        return ranges.map { range in
            var total = Double(max(Int(range.lowestBin) - 1, 0)) * n
            for offset in 0..<Int(range.width) where Int(range.lowestBin) + offset >= 1 {
                total += Double(survival[Int(range.start) + offset])
            }
            return Float((total / n + 0.5) / Double(scale))
        }
    }

    /// Whether a query of `size` terms has p-values without a warning: a size the distribution holds, or, in
    /// asymmetric scoring, a longer one up to the size its extrapolation was measured for.
    public func covers(querySize size: Int) -> Bool {
        size <= maxQuerySize || (scoring == .asymmetric && size <= Self.extrapolationMeasuredUpTo)
    }

    /// The score of a query of `size` terms moved onto the size-`K` distribution of disease `d`: itself up to `K`; in
    /// asymmetric scoring beyond it, its distance from the disease's mean stretched by `√(size / K)`.
    @inline(__always)
    func scoreOnLargestSize(_ score: Float, size: Int, disease d: Int) -> Float {
        guard size > maxQuerySize, scoring == .asymmetric else { return score }
        let mean = largestSizeMeans[d]
        return mean + (score - mean) * (Float(size) / Float(maxQuerySize)).squareRoot()
    }

    static func scale(binCount: Int, maxScore: Float) -> Float {
        Float(binCount) / (maxScore > 0 ? maxScore : 1)
    }

    @inline(__always)
    static func bin(_ score: Float, scale: Float, binCount: Int) -> Int {
        min(Int(max(score, 0) * scale), binCount &- 1)
    }

    /// Approximate memory held by the distribution, in bytes.
    public var byteCount: Int {
        ranges.count * MemoryLayout<Range>.stride + survival.count * MemoryLayout<UInt16>.stride
    }

    // MARK: Reading p-values

    /// The number of null scores (of the given query size, for the disease) that are `≥ score`,
    /// up to the binning described in the type documentation.
    public func survivalCount(diseaseIndex d: Int, querySize: Int, score: Double) -> Int {
        var out = [UInt32](repeating: 0, count: 1)
        survivalCounts(querySize: querySize, scores: [Float(score)], diseases: d..<(d + 1), into: &out)
        return Int(out[0])
    }

    /// `p = (#{null scores ≥ score} + 1) / (N + 1)`.
    public func pValue(diseaseIndex d: Int, querySize: Int, score: Double) -> Double {
        (Double(survivalCount(diseaseIndex: d, querySize: querySize, score: score)) + 1) / Double(sampleCount + 1)
    }

    /// Survival counts for `scores[i]` of disease `diseases.lowerBound + i`.
    ///
    /// A ranking reads one count for every disease, each in a different cache line of tens of megabytes of counts: the
    /// time is the memory's. So the first pass only works out where each count is (or that it is `N` below the
    /// disease's range, 0 above it), and the second does nothing but read them, so the processor can have many reads
    /// in flight at once. Neither pass branches on the data: which side of the range a score falls is as good as
    /// random, and a mispredicted branch would cost more than the arithmetic.
    func survivalCounts(querySize: Int, scores: [Float], diseases: Swift.Range<Int>, into out: inout [UInt32]) {
        if querySize > maxQuerySize, scoring == .asymmetric {
            let moved = diseases.enumerated().map { i, d in scoreOnLargestSize(scores[i], size: querySize, disease: d) }
            return survivalCounts(querySize: maxQuerySize, scores: moved, diseases: diseases, into: &out)
        }
        let k = min(max(querySize, 1), maxQuerySize)
        let first = (k - 1) * diseaseCount
        let n = UInt32(sampleCount)
        let scale = scale
        let bins = binCount
        var at = [Int](repeating: -1, count: diseases.count)
        ranges.withUnsafeBufferPointer { ranges in
            scores.withUnsafeBufferPointer { scores in
                at.withUnsafeMutableBufferPointer { at in
                    out.withUnsafeMutableBufferPointer { out in
                        for (i, d) in diseases.enumerated() {
                            let range = ranges[first &+ d]
                            let b = Self.bin(scores[i] - Self.observedScoreMargin, scale: scale, binCount: bins)
                            let offset = b &- Int(range.lowestBin)
                            let inside = offset >= 0 && offset < Int(range.width)
                            out[i] = offset < 0 ? n : 0
                            at[i] = inside ? Int(range.start) &+ offset : -1
                        }
                    }
                }
            }
        }
        survival.withUnsafeBufferPointer { survival in
            at.withUnsafeBufferPointer { at in
                out.withUnsafeMutableBufferPointer { out in
                    for i in 0..<at.count {
                        let slot = at[i]
                        let count = UInt32(survival[max(slot, 0)])
                        out[i] = slot >= 0 ? count : out[i]
                    }
                }
            }
        }
    }

    // MARK: Building

    /// Samples the null distribution for every disease of `knowledgeBase` (see the type
    /// documentation for the sampling scheme).
    ///
    /// Asymmetric mode runs disease by disease: one `O(T + E)` pass over the DAG gives, for every
    /// term `q`, `max_{t∈D} IC(MICA(q, t))`; a random query's score is then a running sum of look-ups,
    /// so the `N` sequences cost `N · K` look-ups per disease. Symmetric mode needs the
    /// disease-to-query direction too: it builds each random query's match table (as a ranking
    /// does) and scores every disease per sample — several times slower for the same `N` (diseases
    /// are processed in blocks so each worker's histograms stay under 32 MB).
    public static func build(
        for kb: PhenotypeKnowledgeBase, options: NullDistributionOptions = .init()
    ) throws(PhenotypeRankingError) -> NullDistribution {
        let universe = kb.samplingUniverse
        guard options.sampleCount >= 1, options.sampleCount <= maxSampleCount else {
            throw PhenotypeRankingError(.invalidOption, "sampleCount must be in 1...\(maxSampleCount)")
        }
        guard options.maxQuerySize >= 1, options.maxQuerySize <= min(universe.count, Int(UInt16.max)) else {
            throw PhenotypeRankingError(
                .invalidOption,
                "maxQuerySize must be in 1...\(min(universe.count, Int(UInt16.max))) (the terms to sample from)")
        }
        guard options.binCount >= 2, options.binCount <= Int(UInt16.max) else {
            throw PhenotypeRankingError(.invalidOption, "binCount must be in 2...65535")
        }
        let n = options.sampleCount
        let K = options.maxQuerySize
        let sequences = sampleSequences(universe: universe, count: n, length: K, seed: options.seed)
        let maxScore = Float(kb.maxInformationContent)
        let scale = Self.scale(binCount: options.binCount, maxScore: maxScore)
        let bins = options.binCount
        let diseaseCount = kb.diseaseCount
        let chunks = max(1, min(options.concurrency, diseaseCount))

        let slots = ChunkResults<([Range], [UInt16])>(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            let lo = diseaseCount * c / chunks
            let hi = diseaseCount * (c + 1) / chunks
            switch options.scoring {
            case .asymmetric:
                slots[c] = buildAsymmetric(
                    kb, diseases: lo..<hi, sequences: sequences, n: n, K: K, bins: bins, scale: scale)
            case .symmetric:
                slots[c] = buildSymmetric(
                    kb, diseases: lo..<hi, sequences: sequences, n: n, K: K, bins: bins, scale: scale)
            }
        }
        var ranges: [Range] = []
        ranges.reserveCapacity(diseaseCount * K)
        var survival: [UInt16] = []
        let outputs = slots.values
        survival.reserveCapacity(outputs.reduce(0) { $0 + $1.1.count })
        for (chunkRanges, chunkSurvival) in outputs {
            let base = UInt32(survival.count)
            ranges.append(
                contentsOf: chunkRanges.map { Range(start: $0.start + base, lowestBin: $0.lowestBin, width: $0.width) })
            survival.append(contentsOf: chunkSurvival)
        }
        return NullDistribution(
            scoring: options.scoring, sampleCount: n, maxQuerySize: K, binCount: bins, seed: options.seed,
            fingerprint: kb.fingerprint, diseaseCount: diseaseCount, maxScore: maxScore, ranges: ranges,
            survival: survival)
    }

    /// `count` sequences of `length` distinct terms drawn uniformly from `universe`.
    static func sampleSequences(universe: [Int32], count: Int, length: Int, seed: UInt64) -> [Int32] {
        var rng = Xoshiro256StarStar(seed: seed)
        var out = [Int32](repeating: 0, count: count * length)
        for s in 0..<count {
            let base = s * length
            for j in 0..<length {
                var x: Int32
                repeat {
                    x = universe[rng.nextInt(below: universe.count)]
                } while out[base..<(base + j)].contains(x)
                out[base + j] = x
            }
        }
        return out
    }

    /// Appends the survival counts of one histogram and returns its range.
    static func appendSurvival(_ hist: UnsafeMutableBufferPointer<UInt16>, to survival: inout [UInt16]) -> Range {
        var lo = 0
        while lo < hist.count, hist[lo] == 0 { lo += 1 }
        var hi = hist.count - 1
        while hi > lo, hist[hi] == 0 { hi -= 1 }
        let start = survival.count
        let width = hi - lo + 1
        survival.append(contentsOf: repeatElement(0, count: width))
        var run: UInt16 = 0
        var b = hi
        while b >= lo {
            run += hist[b]
            survival[start + b - lo] = run
            b -= 1
        }
        return Range(start: UInt32(start), lowestBin: UInt16(lo), width: UInt16(width))
    }

    private static func buildAsymmetric(
        _ kb: PhenotypeKnowledgeBase, diseases: Swift.Range<Int>, sequences: [Int32], n: Int, K: Int, bins: Int,
        scale: Float
    ) -> ([Range], [UInt16]) {
        let ontology = kb.ontology
        let termCount = kb.termCount
        var ranges: [Range] = []
        var survival: [UInt16] = []
        var row = [Float](repeating: 0, count: termCount)
        var stamp = [Int32](repeating: -1, count: termCount)
        var hist = [UInt16](repeating: 0, count: K * bins)
        let divisors = (1...K).map { Float($0) }
        for d in diseases {
            let tag = Int32(d)
            for t in kb.annotationSlice(d) {
                for a in ontology.ancestorSlice(Int(t)) { stamp[Int(a)] = tag }
            }
            // row[q] = max IC over ancestors of q that lie in the disease's closure
            //        = max_{t∈D} IC(MICA(q, t)).
            kb.ic.withUnsafeBufferPointer { ic in
                ontology.parentOffsets.withUnsafeBufferPointer { po in
                    ontology.parentList.withUnsafeBufferPointer { pl in
                        ontology.topologicalOrder.withUnsafeBufferPointer { order in
                            stamp.withUnsafeBufferPointer { stamp in
                                row.withUnsafeMutableBufferPointer { r in
                                    for t32 in order {
                                        let t = Int(t32)
                                        if stamp[t] == tag {
                                            r[t] = ic[t]
                                        } else {
                                            var m: Float = 0
                                            for p in Int(po[t])..<Int(po[t &+ 1]) { m = max(m, r[Int(pl[p])]) }
                                            r[t] = m
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            hist.withUnsafeMutableBufferPointer { h in
                h.update(repeating: 0)
                row.withUnsafeBufferPointer { r in
                    sequences.withUnsafeBufferPointer { seq in
                        divisors.withUnsafeBufferPointer { div in
                            var base = 0
                            for _ in 0..<n {
                                var acc: Float = 0
                                var offset = 0
                                for j in 0..<K {
                                    acc += r[Int(seq[base &+ j])]
                                    h[offset &+ bin(acc / div[j], scale: scale, binCount: bins)] &+= 1
                                    offset &+= bins
                                }
                                base &+= K
                            }
                        }
                    }
                }
                for j in 0..<K {
                    let slice = UnsafeMutableBufferPointer(rebasing: h[(j * bins)..<((j + 1) * bins)])
                    ranges.append(appendSurvival(slice, to: &survival))
                }
            }
        }
        return (ranges, survival)
    }

    /// Symmetric build. Diseases are processed in blocks whose histograms fit in 32 MB; within a
    /// block, samples are scored in batches of 32 whose bins go to a small buffer first, then into
    /// the histograms disease by disease, so histogram writes stay in cache.
    private static func buildSymmetric(
        _ kb: PhenotypeKnowledgeBase, diseases: Swift.Range<Int>, sequences: [Int32], n: Int, K: Int, bins: Int,
        scale: Float
    ) -> ([Range], [UInt16]) {
        var ranges: [Range] = []
        var survival: [UInt16] = []
        let blockSize = max(1, (32 << 20) / (K * bins * MemoryLayout<UInt16>.stride))
        let batchSize = 32
        var table = MatchTable(termCount: kb.termCount, width: K)
        let divisors = (1...K).map { Float($0) }
        typealias Lanes = MatchTable.Lanes
        let blocks = table.blocks
        var best = [Lanes](repeating: Lanes(), count: blocks)
        var reverse = [Lanes](repeating: Lanes(), count: blocks)
        let termCount = kb.termCount
        var blockStart = diseases.lowerBound
        while blockStart < diseases.upperBound {
            let block = blockStart..<min(blockStart + blockSize, diseases.upperBound)
            var hist = [UInt16](repeating: 0, count: block.count * K * bins)
            // batch[(s · blockCount + local) · K + i] = bin of sample s, disease local, size i + 1.
            var batch = [UInt16](repeating: 0, count: batchSize * block.count * K)
            var batchStart = 0
            while batchStart < n {
                let batchCount = min(batchSize, n - batchStart)
                for s in 0..<batchCount {
                    table.reset()
                    let sample = batchStart + s
                    for j in 0..<K { table.mark(kb, term: sequences[sample * K + j], column: j) }
                    table.values.withUnsafeBufferPointer { v in
                        kb.annotationOffsets.withUnsafeBufferPointer { offsets in
                            kb.annotationTerms.withUnsafeBufferPointer { terms in
                                batch.withUnsafeMutableBufferPointer { out in
                                    best.withUnsafeMutableBufferPointer { best in
                                        reverse.withUnsafeMutableBufferPointer { reverse in
                                            var outIndex = s * block.count * K
                                            for d in block {
                                                best.update(repeating: Lanes())
                                                reverse.update(repeating: Lanes())
                                                let lo = Int(offsets[d])
                                                let hi = Int(offsets[d &+ 1])
                                                for a in lo..<hi {
                                                    let t = Int(terms[a])
                                                    var carry: Float = 0
                                                    for b in 0..<blocks {
                                                        let x = v[b &* termCount &+ t]
                                                        best[b] = lanewiseMax(best[b], x)
                                                        // running[i] = max(x_0 … x_i) across blocks.
                                                        let running = lanewiseMax(prefixMax(x), Lanes(repeating: carry))
                                                        carry = running[7]
                                                        reverse[b] += running
                                                    }
                                                }
                                                let annotations = Float(max(hi - lo, 1))
                                                var acc: Float = 0
                                                for i in 0..<K {
                                                    acc += best[i >> 3][i & 7]
                                                    let score = (acc / divisors[i] + reverse[i >> 3][i & 7] / annotations) / 2
                                                    out[outIndex] = UInt16(bin(score, scale: scale, binCount: bins))
                                                    outIndex &+= 1
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                batch.withUnsafeBufferPointer { batch in
                    hist.withUnsafeMutableBufferPointer { h in
                        for local in 0..<block.count {
                            let histBase = local * K * bins
                            for s in 0..<batchCount {
                                let base = (s * block.count + local) * K
                                for i in 0..<K { h[histBase &+ i &* bins &+ Int(batch[base &+ i])] &+= 1 }
                            }
                        }
                    }
                }
                batchStart += batchCount
            }
            hist.withUnsafeMutableBufferPointer { h in
                for local in 0..<block.count {
                    for j in 0..<K {
                        let start = (local * K + j) * bins
                        ranges.append(
                            appendSurvival(UnsafeMutableBufferPointer(rebasing: h[start..<(start + bins)]), to: &survival))
                    }
                }
            }
            blockStart = block.upperBound
        }
        return (ranges, survival)
    }
}

/// One result slot per parallel chunk. Each slot is written once by its own worker; the lock
/// makes the writes and the final read well-ordered, which is why `@unchecked Sendable` is safe.
private final class ChunkResults<T: Sendable>: @unchecked Sendable {
    private var slots: [T?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    subscript(index: Int) -> T? {
        get { lock.withLock { slots[index] } }
        set { lock.withLock { slots[index] = newValue } }
    }

    var values: [T] { lock.withLock { slots.map { $0! } } }
}
