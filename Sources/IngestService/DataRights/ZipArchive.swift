import Foundation

/// A ZIP archive written entry by entry, stored without compression (photos are compressed already), as PKWARE's
/// APPNOTE.TXT (6.3.10) describes it: each entry a local file header and its bytes, then the central directory and
/// its end record. Names are UTF-8 (general purpose flag bit 11). Entries are appended whole, so their CRC-32 and
/// sizes go in the local header and no data descriptor is needed; an archive is streamed as it is written.
///
/// Without ZIP64, an archive holds at most 65,535 entries and 4 GiB: `append` refuses an entry past either.
struct ZipArchive {
    struct Entry {
        let name: [UInt8]
        let crc: UInt32
        let size: UInt32
        let offset: UInt32
        let time: UInt16
        let date: UInt16
    }

    struct TooLarge: Error, CustomStringConvertible {
        var description: String { "the archive would pass 4 GiB or 65,535 entries, the limits of a ZIP archive without ZIP64" }
    }

    private(set) var entries: [Entry] = []
    /// Bytes written so far: where the next entry starts.
    private(set) var offset: UInt64 = 0
    /// The central directory's size so far (46 bytes and the name per entry).
    private var directory: UInt64 = 0

    static let maximum = UInt64(UInt32.max)

    /// The bytes that add a file named `name` (a path with `/` separators) holding `data`, modified at `modified`.
    mutating func append(_ name: String, _ data: some Collection<UInt8>, modified: Date) throws -> [UInt8] {
        let name = Array(name.utf8)
        let size = UInt64(data.count)
        let header = 30 + UInt64(name.count)
        guard entries.count < 65_535, name.count <= Int(UInt16.max),
            // This entry, the directory with its header in it, and the end record.
            offset + header + size + directory + 46 + UInt64(name.count) + 22 <= Self.maximum
        else {
            throw TooLarge()
        }
        let (time, date) = Self.dosTime(modified)
        let entry = Entry(name: name, crc: CRC32.checksum(data), size: UInt32(size), offset: UInt32(offset), time: time, date: date)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(header) + data.count)
        bytes.append(le32: 0x0403_4b50)
        bytes.append(le16: 20)  // version needed to extract: 2.0
        bytes.append(le16: 0x0800)  // names in UTF-8
        bytes.append(le16: 0)  // stored
        bytes.append(le16: time)
        bytes.append(le16: date)
        bytes.append(le32: entry.crc)
        bytes.append(le32: entry.size)
        bytes.append(le32: entry.size)
        bytes.append(le16: UInt16(name.count))
        bytes.append(le16: 0)  // no extra field
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: data)
        entries.append(entry)
        offset += UInt64(bytes.count)
        directory += 46 + UInt64(name.count)
        return bytes
    }

    /// The central directory and its end record: the archive's last bytes.
    func finish() -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes.append(le32: 0x0201_4b50)
            bytes.append(le16: 0x0314)  // made by: UNIX, 2.0
            bytes.append(le16: 20)
            bytes.append(le16: 0x0800)
            bytes.append(le16: 0)
            bytes.append(le16: entry.time)
            bytes.append(le16: entry.date)
            bytes.append(le32: entry.crc)
            bytes.append(le32: entry.size)
            bytes.append(le32: entry.size)
            bytes.append(le16: UInt16(entry.name.count))
            bytes.append(le16: 0)  // extra field
            bytes.append(le16: 0)  // comment
            bytes.append(le16: 0)  // disk number
            bytes.append(le16: 0)  // internal attributes
            bytes.append(le32: 0o100644 << 16)  // a regular file, rw-r--r--
            bytes.append(le32: entry.offset)
            bytes.append(contentsOf: entry.name)
        }
        let directorySize = UInt32(bytes.count)
        bytes.append(le32: 0x0605_4b50)
        bytes.append(le16: 0)
        bytes.append(le16: 0)
        bytes.append(le16: UInt16(entries.count))
        bytes.append(le16: UInt16(entries.count))
        bytes.append(le32: directorySize)
        bytes.append(le32: UInt32(offset))
        bytes.append(le16: 0)  // no comment
        return bytes
    }

    /// What an entry adds besides its bytes: its local header and its central directory header, each with its name.
    static func overhead(nameLength: Int) -> UInt64 { UInt64(30 + 46 + 2 * nameLength) }

    /// The size of an archive of files with these names and sizes, end record included.
    static func size(of files: [(name: String, bytes: Int)]) -> UInt64 {
        files.reduce(22) { $0 + overhead(nameLength: $1.name.utf8.count) + UInt64(max(0, $1.bytes)) }
    }

    /// MS-DOS date and time in UTC (two-second resolution, 1980 to 2107), as ZIP headers carry them.
    static func dosTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        return (time, UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1)))
    }
}

/// CRC-32 of ISO 3309 / ITU-T V.42 (polynomial 0xEDB88320, reflected), as ZIP and PNG use it.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension [UInt8] {
    fileprivate mutating func append(le16 value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func append(le32 value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
