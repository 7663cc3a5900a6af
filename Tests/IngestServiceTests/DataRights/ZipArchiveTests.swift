import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

@Suite("ZIP archive")
struct ZipArchiveTests {
    @Test("CRC-32 gives the standard's check value")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("an entry's local header, then the central directory naming it at its offset, then the end record")
    func layout() throws {
        var zip = ZipArchive()
        let modified = try #require(Timestamp.parse("2026-11-20T10:11:12Z"))
        let first = try zip.append("a.txt", Array("hello".utf8), modified: modified)
        let second = try zip.append("photos/b.jpg", [0xFF, 0xD8], modified: modified)
        let end = zip.finish()
        #expect(first.count == 30 + 5 + 5 && second.count == 30 + 12 + 2)
        #expect(first.prefix(4) == [0x50, 0x4B, 0x03, 0x04] && first.suffix(5) == Array("hello".utf8))
        // Two central headers, then the end record: 2 entries, the directory's size and where it starts.
        let endRecord = Array(end.suffix(22))
        #expect(endRecord.prefix(4) == [0x50, 0x4B, 0x05, 0x06])
        #expect(endRecord[10] == 2 && endRecord[8] == 2)
        let directorySize = Int(endRecord[12]) | Int(endRecord[13]) << 8
        let directoryOffset = Int(endRecord[16]) | Int(endRecord[17]) << 8
        #expect(directorySize == end.count - 22 && directoryOffset == first.count + second.count)
        // What the export checks before it streams is what the archive comes to.
        #expect(ZipArchive.size(of: [("a.txt", 5), ("photos/b.jpg", 2)]) == UInt64(first.count + second.count + end.count))
        // 10:11:12 UTC on 2026-11-20 in MS-DOS form.
        let (time, date) = ZipArchive.dosTime(modified)
        #expect(time == UInt16(10 << 11 | 11 << 5 | 6) && date == UInt16(46 << 9 | 11 << 5 | 20))
    }
}
