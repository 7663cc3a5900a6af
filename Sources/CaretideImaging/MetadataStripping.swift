/// Removes what can identify a place, a person or a device from an image file without decoding it again: the
/// pixels stored are the pixels sent, byte for byte.
///
/// - JPEG (ITU-T T.81 Annex B): only what decoding needs is kept: the frame and scan headers, the quantisation,
///   Huffman and arithmetic tables, the restart interval, the entropy-coded data, and three segments the colours
///   depend on: the first well-formed JFIF APP0, rewritten without its thumbnail (a picture of its own, which a JFXX
///   APP0 also carries, with EXIF and GPS inside it if the camera put them there); an ICC profile (APP2); and Adobe's
///   APP14 cut to its 12 bytes (the colour transform libjpeg reads), the last one, as libjpeg uses the last. Every
///   other APPn (EXIF with its GPS IFD and serial numbers, XMP, JFXX, MPF's secondary images), comments, markers
///   libjpeg does not use, and anything after EOI (phone makers' trailers) are dropped. The EXIF orientation survives
///   as a new minimal EXIF segment holding that one tag (JEITA CP-3451, tag 0x0112), so the photo still shows the
///   right way up.
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

    /// One marker segment of a JPEG file: its marker byte, where its bytes (fill bytes and marker included) lie, and
    /// where its data after the length field lies (empty for a marker without one); for SOS, the entropy-coded data
    /// that follows is part of the segment and of its data.
    struct Segment {
        let marker: UInt8
        let range: Range<Int>
        let data: Range<Int>
    }

    static func segments(_ bytes: [UInt8]) throws(Malformed) -> [Segment] {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw Malformed(reason: "no JPEG start-of-image marker") }
        var segments = [Segment(marker: 0xD8, range: 0..<2, data: 2..<2)]
        var position = 2
        while position < bytes.count {
            // Fill bytes (0xFF) may precede a marker (T.81 B.1.1.2).
            guard bytes[position] == 0xFF else { throw Malformed(reason: "a JPEG marker was expected at byte \(position)") }
            var markerAt = position
            while markerAt + 1 < bytes.count, bytes[markerAt + 1] == 0xFF { markerAt += 1 }
            guard markerAt + 1 < bytes.count else { throw Malformed(reason: "the JPEG file ends inside a marker") }
            let marker = bytes[markerAt + 1]
            if marker == 0xD9 {
                segments.append(Segment(marker: marker, range: position..<(markerAt + 2), data: (markerAt + 2)..<(markerAt + 2)))
                return segments
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                segments.append(Segment(marker: marker, range: position..<(markerAt + 2), data: (markerAt + 2)..<(markerAt + 2)))
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
            segments.append(Segment(marker: marker, range: position..<end, data: (markerAt + 4)..<end))
            position = end
        }
        // No EOI: libjpeg decides whether the data is whole; nothing more to strip.
        return segments
    }

    /// Whether a segment is one of the image itself, kept as it is (T.81 Table B.1): SOI and EOI, the frame headers
    /// SOF0–SOF15 with the Huffman (DHT) and arithmetic (DAC) tables among them, a scan with its entropy-coded data,
    /// the restart markers, the quantisation tables (DQT) and the restart interval (DRI). Not JPG (0xC8), DNL, the
    /// hierarchical markers or the extensions, which libjpeg does not use (DNL it skips, whatever its length holds).
    static func isImageData(_ marker: UInt8) -> Bool {
        switch marker {
        case 0xC0...0xC7, 0xC9...0xCF, 0xD0...0xDB, 0xDD: true
        default: false
        }
    }

    static func identifier(of segment: Segment, in bytes: [UInt8], is expected: String) -> Bool {
        bytes[segment.data].starts(with: Array(expected.utf8))
    }

    /// A JFIF APP0 segment (JFIF 1.02: "JFIF\0", version 2 bytes, units 1, X and Y density 2 each, thumbnail width
    /// and height 1 each, then 3 × width × height bytes of RGB thumbnail) rewritten with a thumbnail of 0 × 0 and no
    /// thumbnail data; nil unless the segment is a whole one.
    static func jfifWithoutThumbnail(_ segment: Segment, in bytes: [UInt8]) -> [UInt8]? {
        let data = bytes[segment.data]
        guard segment.marker == 0xE0, data.count >= 14, identifier(of: segment, in: bytes, is: "JFIF\0") else { return nil }
        let fields = Array(data.prefix(14))
        guard data.count >= 14 + 3 * Int(fields[12]) * Int(fields[13]) else { return nil }
        let header: [UInt8] = [0xFF, 0xE0, 0x00, 16]
        let noThumbnail: [UInt8] = [0, 0]
        return header + Array(fields.prefix(12)) + noThumbnail
    }

    /// An Adobe APP14 segment ("Adobe", then version, flags0 and flags1 of 2 bytes each and the colour transform: 0
    /// none, 1 YCbCr, 2 YCCK; Adobe Technical Note 5116, "Supporting the DCT Filters in PostScript Level 2") cut to
    /// those 12 bytes; nil unless the segment is one.
    static func adobeTransform(_ segment: Segment, in bytes: [UInt8]) -> [UInt8]? {
        let data = bytes[segment.data]
        guard segment.marker == 0xEE, data.count >= 12, identifier(of: segment, in: bytes, is: "Adobe") else { return nil }
        let header: [UInt8] = [0xFF, 0xEE, 0x00, 14]
        return header + Array(data.prefix(12))
    }

    static func strippedJPEG(_ bytes: [UInt8]) throws(Malformed) -> Stripped {
        let segments = try segments(bytes)
        let orientation = segments.lazy.filter { $0.marker == 0xE1 }.compactMap { exifOrientation(bytes[$0.range]) }.first
        // One JFIF APP0 at most, the first whole one; one Adobe APP14, the last (libjpeg applies the last one's transform).
        let jfif = segments.indices.first { jfifWithoutThumbnail(segments[$0], in: bytes) != nil }
        let adobe = segments.indices.last { adobeTransform(segments[$0], in: bytes) != nil }
        // The orientation goes after SOI, or after JFIF's APP0 when it follows SOI (JFIF wants APP0 first).
        let anchor = jfif == 1 ? 1 : 0
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for (index, segment) in segments.enumerated() {
            switch segment.marker {
            case 0xE0:
                guard index == jfif, let rewritten = jfifWithoutThumbnail(segment, in: bytes) else { continue }
                output += rewritten
            case 0xE2:
                guard identifier(of: segment, in: bytes, is: "ICC_PROFILE\0") else { continue }
                output += bytes[segment.range]
            case 0xEE:
                guard index == adobe, let rewritten = adobeTransform(segment, in: bytes) else { continue }
                output += rewritten
            default:
                guard isImageData(segment.marker) else { continue }
                output += bytes[segment.range]
            }
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
        let chunks = try PNGChunks.walk(bytes)
        var output = Array(bytes[0..<8])
        for chunk in chunks where keptChunks.contains(chunk.type) { output += bytes[chunk.bytes] }
        return output
    }
}
