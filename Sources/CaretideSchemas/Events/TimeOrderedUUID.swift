public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension UUID {
    /// A new RFC 9562 version-7 UUID: 48 bits of Unix milliseconds, then 74 random bits. Every id Caretide mints
    /// (events, assessments, alerts, flags) is one: ids made close in time sort close together, so the B-tree
    /// indexes they key are appended to rather than written at random pages, and the random bits come from the
    /// system generator instead of Foundation's `UUID()`, which opened `/dev/urandom` for every id.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, Timestamp.milliseconds(date)))
        let (high, low) = SystemRandom.twoWords()
        return UUID(
            uuid: (
                UInt8(truncatingIfNeeded: milliseconds >> 40), UInt8(truncatingIfNeeded: milliseconds >> 32),
                UInt8(truncatingIfNeeded: milliseconds >> 24), UInt8(truncatingIfNeeded: milliseconds >> 16),
                UInt8(truncatingIfNeeded: milliseconds >> 8), UInt8(truncatingIfNeeded: milliseconds),
                0x70 | UInt8(truncatingIfNeeded: high & 0x0F), UInt8(truncatingIfNeeded: high >> 8),  // version 7
                0x80 | UInt8(truncatingIfNeeded: (high >> 16) & 0x3F), UInt8(truncatingIfNeeded: high >> 24),  // variant 10
                UInt8(truncatingIfNeeded: high >> 32), UInt8(truncatingIfNeeded: high >> 40),
                UInt8(truncatingIfNeeded: low), UInt8(truncatingIfNeeded: low >> 8),
                UInt8(truncatingIfNeeded: low >> 16), UInt8(truncatingIfNeeded: low >> 24)
            ))
    }
}

extension UUID {
    /// The same RFC 9562 version-8 UUID for the same name, in every process: the 128-bit FNV-1a hash of its UTF-8
    /// bytes with the version and variant bits set. For ids a consumer de-duplicates on (a notification's id from its
    /// source and recipient): made again, the id is the same. Not for secrets: FNV is not cryptographic.
    public static func named(_ name: String) -> UUID {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
        for byte in name.utf8 {
            hash ^= UInt128(byte)
            hash &*= prime
        }
        var bytes = (0..<16).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt128(15 - $0))) }
        bytes[6] = 0x80 | (bytes[6] & 0x0F)  // version 8
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 10
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// Random bits from the system's generator, 128 at a time. The kernel is asked for a page of them at once and the
/// rest kept for the next calls: every request takes several (its request id, its events' ids, its audit entry's),
/// and a system call each was a visible share of a request's own work.
public enum SystemRandom {
    private static let pool = Mutex(Pool())

    public static func twoWords() -> (UInt64, UInt64) {
        pool.withLock { $0.take() }
    }

    private struct Pool {
        private var words = [UInt64](repeating: 0, count: 512)
        private var next = 512

        mutating func take() -> (UInt64, UInt64) {
            if next == words.count {
                words.withUnsafeMutableBytes { SystemRandom.fill($0) }
                next = 0
            }
            defer { next += 2 }
            return (words[next], words[next + 1])
        }
    }

    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
            // glibc's arc4random_buf reads the kernel's generator (getrandom), and ends the process rather than
            // return weak bits.
            arc4random_buf(buffer.baseAddress!, buffer.count)
        #else
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
            }
        #endif
    }
}
