/// Removes what can identify a place, a person or a device from an image file without decoding it again: the
/// pixels stored are the pixels sent, byte for byte.
///
/// - JPEG (ITU-T T.81 Annex B): every segment is kept except APP1 (EXIF with its GPS IFD and serial numbers, XMP),
///   APP2 other than an ICC profile (MPF's secondary images, FlashPix), APP3–APP13, APP15 and comments; anything after
///   EOI (phone makers' trailers) is dropped. JFIF (APP0), the ICC profile (APP2) and Adobe's colour transform
///   (APP14) stay: the colours depend on them. The EXIF orientation survives as a new minimal EXIF segment holding
///   that one tag (JEITA CP-3451, tag 0x0112), so the photo still shows the right way up.
/// - PNG (PNG specification 5.3–5.4): the critical chunks and those that define colour (tRNS, cHRM, gAMA, iCCP, sBIT,
///   sRGB, pHYs, bKGD) are kept; text chunks, eXIf, tIME and every other ancillary chunk are dropped.
public enum MetadataStripping {
    public struct Malformed: Error, Equatable {
        public let reason: String
    }

    /// A file without its metadata, and the EXIF orientation it kept (1 when none: shown as stored).
    public struct Stripped: Sendable {
        public let bytes: [UInt8]
        public let orientation: Int
    }

    /// A JPEG or PNG without its metadata (a HEIF photo is stored as a JPEG of its pixels: ``PhotoInspection``).
    public static func stripped(_ bytes: [UInt8], format: ImageFormat) throws(Malformed) -> Stripped {
        switch format {
        case .jpeg: try strippedJPEG(bytes)
        case .png: Stripped(bytes: try strippedPNG(bytes), orientation: 1)
        case .heif: throw Malformed(reason: "HEIF is stored as a JPEG of its pixels, not stripped")
        }
    }

    // MARK: JPEG

    /// One marker segment of a JPEG file: its marker byte and where its bytes (marker included) lie; for SOS, the
    /// entropy-coded data that follows is part of the segment.
    struct Segment {
        let marker: UInt8
        let range: Range<Int>
    }

    static func segments(_ bytes: [UInt8]) throws(Malformed) -> [Segment] {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw Malformed(reason: "no JPEG start-of-image marker") }
        var segments = [Segment(marker: 0xD8, range: 0..<2)]
        var position = 2
        while position < bytes.count {
            // Fill bytes (0xFF) may precede a marker (T.81 B.1.1.2).
            guard bytes[position] == 0xFF else { throw Malformed(reason: "a JPEG marker was expected at byte \(position)") }
            var markerAt = position
            while markerAt + 1 < bytes.count, bytes[markerAt + 1] == 0xFF { markerAt += 1 }
            guard markerAt + 1 < bytes.count else { throw Malformed(reason: "the JPEG file ends inside a marker") }
            let marker = bytes[markerAt + 1]
            if marker == 0xD9 {
                segments.append(Segment(marker: marker, range: position..<(markerAt + 2)))
                return segments
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                segments.append(Segment(marker: marker, range: position..<(markerAt + 2)))
                position = markerAt + 2
                continue
            }
            guard markerAt + 3 < bytes.count else { throw Malformed(reason: "the JPEG file ends inside a segment header") }
            let length = Int(bytes[markerAt + 2]) << 8 | Int(bytes[markerAt + 3])
            var end = markerAt + 2 + length
            guard length >= 2, end <= bytes.count else { throw Malformed(reason: "a JPEG segment runs past the end of the file") }
            if marker == 0xDA {
                // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart marker.
                while end + 1 < bytes.count, !(bytes[end] == 0xFF && bytes[end + 1] != 0x00 && !(0xD0...0xD7).contains(bytes[end + 1])) {
                    end += 1
                }
                if end + 1 >= bytes.count { end = bytes.count }
            }
            segments.append(Segment(marker: marker, range: position..<end))
            position = end
        }
        // No EOI: libjpeg decides whether the data is whole; nothing more to strip.
        return segments
    }

    static func keeps(_ segment: Segment, in bytes: [UInt8]) -> Bool {
        switch segment.marker {
        case 0xE1, 0xE3...0xED, 0xEF, 0xFE: false
        case 0xE2: identifier(of: segment, in: bytes, is: "ICC_PROFILE\0")
        default: true
        }
    }

    static func identifier(of segment: Segment, in bytes: [UInt8], is expected: String) -> Bool {
        let start = segment.range.lowerBound + 4
        let identifier = Array(expected.utf8)
        guard start + identifier.count <= segment.range.upperBound else { return false }
        return Array(bytes[start..<(start + identifier.count)]) == identifier
    }

    static func strippedJPEG(_ bytes: [UInt8]) throws(Malformed) -> Stripped {
        let segments = try segments(bytes)
        let orientation = segments.lazy.filter { $0.marker == 0xE1 }.compactMap { exifOrientation(bytes[$0.range]) }.first
        // The orientation goes after SOI, or after JFIF's APP0 when it follows SOI (JFIF wants APP0 first).
        let anchor = segments.count > 1 && segments[1].marker == 0xE0 && identifier(of: segments[1], in: bytes, is: "JFIF\0") ? 1 : 0
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for (index, segment) in segments.enumerated() where keeps(segment, in: bytes) {
            output += bytes[segment.range]
            if index == anchor, let orientation, orientation != 1 { output += orientationSegment(orientation) }
        }
        return Stripped(bytes: output, orientation: orientation ?? 1)
    }

    /// The orientation tag (0x0112) of IFD0 in an APP1 EXIF segment (marker included), if it is one and has it.
    public static func exifOrientation(_ segment: ArraySlice<UInt8>) -> Int? {
        let bytes = Array(segment)
        let header: [UInt8] = Array("Exif\0\0".utf8)
        guard bytes.count > 4 + header.count + 8, Array(bytes[4..<(4 + header.count)]) == header else { return nil }
        let tiff = Array(bytes[(4 + header.count)...])
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func read16(_ at: Int) -> Int? {
            guard at + 2 <= tiff.count else { return nil }
            return bigEndian ? Int(tiff[at]) << 8 | Int(tiff[at + 1]) : Int(tiff[at + 1]) << 8 | Int(tiff[at])
        }
        func read32(_ at: Int) -> Int? {
            guard let high = read16(bigEndian ? at : at + 2), let low = read16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard let ifd = read32(4), let count = read16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + 12 * entry
            guard let tag = read16(at) else { return nil }
            // SHORT (type 3), count 1: the value sits in the first two bytes of the value field.
            if tag == 0x0112, read16(at + 2) == 3, let value = read16(at + 8), (1...8).contains(value) { return value }
        }
        return nil
    }

    /// An APP1 EXIF segment holding IFD0 with the orientation tag alone (big-endian TIFF, JEITA CP-3451 4.6.2).
    static func orientationSegment(_ orientation: Int) -> [UInt8] {
        let tiff: [UInt8] =
            [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // "MM", 42, IFD0 at 8
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00]  // 0x0112 SHORT ×1
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        let body = Array("Exif\0\0".utf8) + tiff
        let length = body.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }

    // MARK: PNG

    static let keptChunks: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "pHYs", "bKGD"]

    static func strippedPNG(_ bytes: [UInt8]) throws(Malformed) -> [UInt8] {
        guard ImageFormat(signatureOf: bytes) == .png else { throw Malformed(reason: "no PNG signature") }
        var output = Array(bytes[0..<8])
        var position = 8
        while position + 12 <= bytes.count {
            let length = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let end = position + 12 + length
            guard end <= bytes.count else { throw Malformed(reason: "a PNG chunk runs past the end of the file") }
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            if keptChunks.contains(type) { output += bytes[position..<end] }
            if type == "IEND" { return output }
            position = end
        }
        throw Malformed(reason: "the PNG file has no IEND chunk")
    }
}
