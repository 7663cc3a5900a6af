/// The POSIX `ustar` archive format (IEEE Std 1003.1, "pax" utility, ustar interchange format): each file is a
/// 512-byte header and its bytes padded to a multiple of 512; two zero blocks end the archive. Every `tar` reads it.
/// Only what a bundle needs: regular files, names of at most 100 bytes, one owner, one time.
enum TarArchive {
    static let blockSize = 512

    /// The header of a regular file (mode 0644, owner 0), `modified` in seconds since 1970.
    static func header(name: String, size: Int, modified: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int, width: Int) {
            for (i, byte) in text.utf8.prefix(width).enumerated() { block[offset + i] = byte }
        }
        // Numbers are octal, zero-padded, ended by NUL.
        func octal(_ value: Int, at offset: Int, width: Int) {
            let digits = String(value, radix: 8)
            put(String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset, width: width - 1)
        }
        precondition(name.utf8.count <= 100, "tar names in a bundle are short")
        put(name, at: 0, width: 100)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)  // uid
        octal(0, at: 116, width: 8)  // gid
        octal(size, at: 124, width: 12)
        octal(modified, at: 136, width: 12)
        block[156] = UInt8(ascii: "0")  // regular file
        put("ustar", at: 257, width: 6)  // magic, NUL-terminated
        put("00", at: 263, width: 2)  // version
        // The checksum is the sum of the header's bytes with its own field read as eight spaces.
        for i in 148..<156 { block[i] = UInt8(ascii: " ") }
        let sum = block.reduce(0) { $0 + Int($1) }
        octal(sum, at: 148, width: 7)
        block[155] = UInt8(ascii: " ")
        return block
    }

    /// Zeros after a file of `size` bytes up to the next block.
    static func padding(after size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: (blockSize - size % blockSize) % blockSize)
    }

    /// The end of the archive.
    static let end = [UInt8](repeating: 0, count: 2 * blockSize)

    /// The archive's size for files of these sizes.
    static func size(ofFiles sizes: [Int]) -> Int {
        sizes.reduce(end.count) { $0 + blockSize + $1 + padding(after: $1).count }
    }
}
