import Foundation

/// Iterates the lines of a UTF-8 buffer without copying: each line is a slice of the
/// buffer with its terminator (`\n` or `\r\n`) removed. Line numbers are 1-based.
struct LineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private(set) var lineNumber = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // Skip a UTF-8 byte-order mark.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard position < bytes.count else { return nil }
        lineNumber += 1
        let start = position
        var end = start
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        position = end + 1
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return bytes[start..<end]
    }
}

extension Slice where Base == UnsafeBufferPointer<UInt8> {
    func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard self.count >= count else { return false }
        let p = prefix.utf8Start
        var i = startIndex
        for k in 0..<count {
            if self[i] != p[k] { return false }
            i += 1
        }
        return true
    }

    func elementsEqual(_ other: StaticString) -> Bool {
        count == other.utf8CodeUnitCount && hasPrefix(other)
    }

    func trimmingSpaces() -> Self {
        var lo = startIndex
        var hi = endIndex
        while lo < hi, self[lo] == 0x20 || self[lo] == 0x09 { lo += 1 }
        while hi > lo, self[hi - 1] == 0x20 || self[hi - 1] == 0x09 { hi -= 1 }
        return self[lo..<hi]
    }
}

/// Runs `body` over the UTF-8 bytes of `text` (contiguous storage, no copy for native strings).
func withUTF8Bytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(PhenotypeRankingError) -> R)
    throws(PhenotypeRankingError) -> R
{
    var text = text
    let result: Result<R, PhenotypeRankingError> = text.withUTF8 { buffer in
        do throws(PhenotypeRankingError) { return .success(try body(buffer)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// Runs `body` over the bytes of `data`.
func withBytes<R>(of data: Data, _ body: (UnsafeBufferPointer<UInt8>) throws(PhenotypeRankingError) -> R)
    throws(PhenotypeRankingError) -> R
{
    let result: Result<R, PhenotypeRankingError> = data.withUnsafeBytes { raw in
        let buffer = raw.bindMemory(to: UInt8.self)
        do throws(PhenotypeRankingError) { return .success(try body(buffer)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// Decodes a slice as UTF-8, failing with a line-numbered error on invalid input.
func decodeUTF8(
    _ slice: Slice<UnsafeBufferPointer<UInt8>>,
    format: PhenotypeRankingError.Format,
    line: Int
) throws(PhenotypeRankingError) -> String {
    // Fast path: ASCII needs no validation.
    var ascii = true
    for byte in slice where byte >= 0x80 {
        ascii = false
        break
    }
    if ascii { return String(decoding: UnsafeBufferPointer(rebasing: slice), as: UTF8.self) }
    guard let string = String(validating: UnsafeBufferPointer(rebasing: slice), as: UTF8.self) else {
        throw PhenotypeRankingError(.invalidUTF8, "invalid UTF-8", format: format, line: line)
    }
    return string
}
