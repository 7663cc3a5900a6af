/// SplitMix64 (Steele, Lea & Flood 2014): used to expand a single 64-bit seed into the
/// state of ``Xoshiro256StarStar``. Deterministic on every platform and Swift version.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0 (Blackman & Vigna). The module's only source of randomness: the null
/// distribution and the recall check draw from it, and bounded draws go through
/// ``nextBounded(_:)`` (Lemire's unbiased multiply-shift method) rather than the standard
/// library's `random(in:using:)`, so a given seed yields the same samples across runs,
/// platforms and Swift releases.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniformly distributed integer in `0..<bound` (`bound > 0`), without modulo bias.
    public mutating func nextBounded(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0, "bound must be positive")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// A uniformly distributed `Int` in `0..<bound`.
    public mutating func nextInt(below bound: Int) -> Int {
        Int(truncatingIfNeeded: nextBounded(UInt64(bound)))
    }

    /// A uniformly distributed `Double` in `[0, 1)` (53 random bits).
    public mutating func nextUnitDouble() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}

/// FNV-1a 64-bit hash, used for fingerprints and checksums that must be stable across
/// processes (Swift's `Hasher` is randomly seeded per process).
struct FNV1a64 {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func combine(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { combine(byte: byte) }
    }

    mutating func combine(_ integer: UInt64) {
        var x = integer
        for _ in 0..<8 {
            combine(byte: UInt8(truncatingIfNeeded: x))
            x >>= 8
        }
    }

    mutating func combine(_ string: String) {
        combine(string.utf8)
        combine(byte: 0)
    }
}
