public import Foundation

extension NullDistribution {
    /// Builds a distribution from explicit null scores — `scores[d][k-1]` holds the `N` null
    /// scores of disease `d` for queries of size `k` (every list must have the same length). Used
    /// for hand-checked tests and for nulls computed elsewhere; binning is as in ``build(for:options:)``.
    public init(
        scoring: ScoringMode, scores: [[[Double]]], maxScore: Double, binCount: Int, fingerprint: UInt64,
        seed: UInt64 = 0
    ) throws(PhenotypeRankingError) {
        guard let first = scores.first?.first, !first.isEmpty else {
            throw PhenotypeRankingError(.invalidOption, "scores must be non-empty")
        }
        let K = scores[0].count
        let n = first.count
        guard scores.allSatisfy({ $0.count == K && $0.allSatisfy { $0.count == n } }) else {
            throw PhenotypeRankingError(.invalidOption, "every disease needs the same query sizes and sample count")
        }
        guard binCount >= 2, binCount <= Int(UInt16.max), K <= Int(UInt16.max) else {
            throw PhenotypeRankingError(.invalidOption, "binCount must be in 2...65535")
        }
        guard n <= Self.maxSampleCount else {
            throw PhenotypeRankingError(.invalidOption, "at most \(Self.maxSampleCount) samples")
        }
        let scale = Self.scale(binCount: binCount, maxScore: Float(maxScore))
        var ranges: [Range] = []
        var survival: [UInt16] = []
        var hist = [UInt16](repeating: 0, count: binCount)
        for perDisease in scores {
            for list in perDisease {
                hist.withUnsafeMutableBufferPointer { h in
                    h.update(repeating: 0)
                    for score in list { h[Self.bin(Float(score), scale: scale, binCount: binCount)] += 1 }
                    ranges.append(Self.appendSurvival(h, to: &survival))
                }
            }
        }
        self.init(
            scoring: scoring, sampleCount: n, maxQuerySize: K, binCount: binCount, seed: seed,
            fingerprint: fingerprint, diseaseCount: scores.count, maxScore: Float(maxScore), ranges: ranges,
            survival: survival)
    }

    // MARK: Serialisation

    private static let magic: [UInt8] = Array("PRNL".utf8)
    private static let formatVersion: UInt16 = 1

    /// The serialised form described in the type documentation, e.g. for a database column.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + survival.count * 2 + ranges.count * 2)
        out.append(contentsOf: Self.magic)
        out.appendLittleEndian(Self.formatVersion)
        out.append(scoring.rawValue)
        out.append(0)
        out.appendLittleEndian(UInt32(sampleCount))
        out.appendLittleEndian(UInt16(maxQuerySize))
        out.appendLittleEndian(UInt16(binCount))
        out.appendLittleEndian(seed)
        out.appendLittleEndian(fingerprint)
        out.appendLittleEndian(UInt32(diseaseCount))
        out.appendLittleEndian(maxScore.bitPattern)
        for d in 0..<diseaseCount {
            for k in 0..<maxQuerySize {
                appendRange(ranges[k * diseaseCount + d], to: &out)
            }
        }
        var hash = FNV1a64()
        hash.combine(out)
        out.appendLittleEndian(hash.value)
        return out
    }

    /// One (disease, size) entry of the serialised form: lowest bin, width, and the histogram.
    private func appendRange(_ range: Range, to out: inout [UInt8]) {
        out.appendVarint(UInt64(range.lowestBin))
        out.appendVarint(UInt64(range.width))
        let start = Int(range.start)
        let width = Int(range.width)
        for j in 0..<width {
            let here = survival[start + j]
            let next = j + 1 < width ? survival[start + j + 1] : 0
            out.appendVarint(UInt64(here &- next))
        }
    }

    /// The serialised form as `Data`.
    public func encodedData() -> Data { Data(encoded()) }

    /// Decodes the form produced by ``encoded()``; fails on a bad magic, version, checksum,
    /// truncation or inconsistent counts.
    public init(decoding bytes: [UInt8]) throws(PhenotypeRankingError) {
        func fail(_ message: String) -> PhenotypeRankingError {
            PhenotypeRankingError(.invalidEncoding, "null distribution: \(message)")
        }
        guard bytes.count >= 48 else { throw fail("too short") }
        var hash = FNV1a64()
        hash.combine(bytes[..<(bytes.count - 8)])
        var reader = ByteReader(bytes: bytes, end: bytes.count - 8)
        var trailer = ByteReader(bytes: bytes, position: bytes.count - 8)
        guard try trailer.littleEndian(UInt64.self) == hash.value else { throw fail("checksum mismatch") }
        guard Array(bytes[0..<4]) == Self.magic else { throw fail("bad magic") }
        reader.position = 4
        guard try reader.littleEndian(UInt16.self) == Self.formatVersion else { throw fail("unsupported version") }
        guard let scoring = ScoringMode(rawValue: try reader.byte()) else { throw fail("bad scoring mode") }
        _ = try reader.byte()
        let n = Int(try reader.littleEndian(UInt32.self))
        let K = Int(try reader.littleEndian(UInt16.self))
        let bins = Int(try reader.littleEndian(UInt16.self))
        let seed = try reader.littleEndian(UInt64.self)
        let fingerprint = try reader.littleEndian(UInt64.self)
        let diseaseCount = Int(try reader.littleEndian(UInt32.self))
        let maxScore = Float(bitPattern: try reader.littleEndian(UInt32.self))
        guard n >= 1, K >= 1, bins >= 2, maxScore.isFinite, maxScore >= 0 else { throw fail("bad header") }
        // Every (disease, size) entry takes at least three bytes; reject absurd counts up front.
        guard diseaseCount.multipliedReportingOverflow(by: K).partialValue <= (reader.end - reader.position) / 3,
            !diseaseCount.multipliedReportingOverflow(by: K).overflow
        else { throw fail("disease count does not fit the data") }
        guard n <= Self.maxSampleCount else { throw fail("sample count too large") }
        // Two passes, so the counts land in the size-major order the look-ups want without a second copy of them:
        // the first reads each entry's bins and where its histogram starts, the second decodes the histograms.
        let entries = diseaseCount * K
        var ranges = [Range](repeating: Range(start: 0, lowestBin: 0, width: 0), count: entries)
        var histogramAt = [Int](repeating: 0, count: entries)
        for d in 0..<diseaseCount {
            for k in 0..<K {
                let lo = try reader.varint()
                let width = try reader.varint()
                guard width >= 1, lo + width <= UInt64(bins) else { throw fail("bin range out of bounds") }
                ranges[k * diseaseCount + d] = Range(start: 0, lowestBin: UInt16(lo), width: UInt16(width))
                histogramAt[k * diseaseCount + d] = reader.position
                for _ in 0..<width { _ = try reader.varint() }
            }
        }
        guard reader.position == reader.end else { throw fail("trailing bytes") }
        var survival: [UInt16] = []
        survival.reserveCapacity(ranges.reduce(0) { $0 + Int($1.width) })
        for entry in 0..<entries {
            reader.position = histogramAt[entry]
            let start = survival.count
            var total: UInt64 = 0
            for _ in 0..<ranges[entry].width {
                let c = try reader.varint()
                total += c
                guard total <= UInt64(n) else { throw fail("counts exceed the sample count") }
                survival.append(UInt16(c))
            }
            guard total == UInt64(n) else { throw fail("counts do not add up to the sample count") }
            // Histogram → survival counts, in place.
            var run: UInt16 = 0
            for j in stride(from: survival.count - 1, through: start, by: -1) {
                run &+= survival[j]
                survival[j] = run
            }
            ranges[entry].start = UInt32(start)
        }
        self.init(
            scoring: scoring, sampleCount: n, maxQuerySize: K, binCount: bins, seed: seed, fingerprint: fingerprint,
            diseaseCount: diseaseCount, maxScore: maxScore, sizeMajorRanges: ranges, survival: survival)
    }

    /// Decodes from `Data`.
    public init(decoding data: Data) throws(PhenotypeRankingError) {
        try self.init(decoding: [UInt8](data))
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }

    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(bytes: [UInt8], position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.position = position
        self.end = end ?? bytes.count
    }

    private static var truncated: PhenotypeRankingError {
        PhenotypeRankingError(.invalidEncoding, "null distribution: truncated")
    }

    mutating func byte() throws(PhenotypeRankingError) -> UInt8 {
        guard position < end else { throw Self.truncated }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func littleEndian<T: FixedWidthInteger>(_: T.Type) throws(PhenotypeRankingError) -> T {
        let size = MemoryLayout<T>.size
        guard position + size <= end else { throw Self.truncated }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[position + i]) << (8 * i) }
        position += size
        return value
    }

    mutating func varint() throws(PhenotypeRankingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else {
                throw PhenotypeRankingError(.invalidEncoding, "null distribution: varint too long")
            }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }
}

/// Benjamini–Hochberg (1995) adjustment of p-values (false-discovery rate), as used by
/// Köhler et al. (2009) across all diseases: with `p_(1) ≤ … ≤ p_(m)`,
/// `adj_(i) = min_{j ≥ i} min(1, p_(j) · m / j)`. Returned in the input order.
public func benjaminiHochberg(_ pValues: [Double]) -> [Double] {
    let m = pValues.count
    guard m > 0 else { return [] }
    let order = pValues.indices.sorted { pValues[$0] < pValues[$1] || (pValues[$0] == pValues[$1] && $0 < $1) }
    var adjusted = [Double](repeating: 1, count: m)
    var running = 1.0
    for rank in stride(from: m, through: 1, by: -1) {
        let i = order[rank - 1]
        running = Swift.min(running, pValues[i] * Double(m) / Double(rank))
        adjusted[i] = Swift.min(1, running)
    }
    return adjusted
}
