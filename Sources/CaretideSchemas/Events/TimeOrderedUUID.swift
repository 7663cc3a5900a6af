import Foundation

extension UUID {
    /// A new RFC 9562 version-7 UUID: 48 bits of Unix milliseconds, then 74 random bits. Every id Caretide mints
    /// (events, assessments, alerts, flags) is one: ids made close in time sort close together, so the B-tree
    /// indexes they key are appended to rather than written at random pages, and the random bits come from the
    /// system generator instead of Foundation's `UUID()`, which opened `/dev/urandom` for every id.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        return UUID(uuid: (
            UInt8(truncatingIfNeeded: milliseconds >> 40), UInt8(truncatingIfNeeded: milliseconds >> 32),
            UInt8(truncatingIfNeeded: milliseconds >> 24), UInt8(truncatingIfNeeded: milliseconds >> 16),
            UInt8(truncatingIfNeeded: milliseconds >> 8), UInt8(truncatingIfNeeded: milliseconds),
            0x70 | UInt8(truncatingIfNeeded: high & 0x0F), UInt8(truncatingIfNeeded: high >> 8),  // version 7
            0x80 | UInt8(truncatingIfNeeded: (high >> 16) & 0x3F), UInt8(truncatingIfNeeded: high >> 24),  // variant 10
            UInt8(truncatingIfNeeded: high >> 32), UInt8(truncatingIfNeeded: high >> 40),
            UInt8(truncatingIfNeeded: low), UInt8(truncatingIfNeeded: low >> 8),
            UInt8(truncatingIfNeeded: low >> 16), UInt8(truncatingIfNeeded: low >> 24)))
    }
}
