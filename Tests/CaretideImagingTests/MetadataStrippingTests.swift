import Testing

@testable import CaretideImaging

@Suite("JPEG stripping keeps only what decoding and colour need")
struct MetadataStrippingTests {
    let startOfImage: [UInt8] = [0xFF, 0xD8]

    /// A JPEG marker segment: the marker, the length (which counts itself), the data.
    func segment(_ marker: UInt8, _ data: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
    }

    @Test(
        "a JFXX thumbnail carrying EXIF GPS, a JFIF thumbnail and a foreign APP14 are not stored; JFIF without thumbnail and Adobe's transform are, and decode the same"
    )
    func jfifAndAdobeSegments() throws {
        let sharp = try fixture("sharp.jpg")
        let gps = try fixture("gps-exif.jpg")
        // sharp.jpg is SOI, a JFIF APP0 of 16 bytes without thumbnail (as Pillow writes it), then its tables and scan.
        let jfifHeader: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8)
        try #require(Array(sharp[2..<11]) == jfifHeader)
        let image = Array(sharp[20...])

        // JFIF 1.02: version 1.02, units 0, density 1 × 1, and a 4 × 1 thumbnail of 12 RGB bytes.
        let thumbnail = Array("LAT38N-LON9W".utf8)
        let jfif = segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 4, 1] + thumbnail)
        // A JFXX extension APP0 whose thumbnail (extension code 0x10, coded as JPEG) is gps-exif.jpg, EXIF and GPS in it.
        let jfxx = segment(0xE0, Array("JFXX\0".utf8) + [0x10] + gps)
        // An APP14 that is not Adobe's, and Adobe's (version 100, flags 0, transform 1: YCbCr, as sharp.jpg is coded)
        // with bytes after its 12.
        let foreign = segment(0xEE, Array("Caretide-GPS\0".utf8) + Array("38.70N 9.14W".utf8))
        let adobeFields: [UInt8] = Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x01]
        let adobe = segment(0xEE, adobeFields + Array("38.70N".utf8))
        let sent = startOfImage + jfif + jfxx + foreign + adobe + image

        // 38°42′30″ as EXIF writes it: three little-endian rationals, 38/1, 42/1, 3000/100.
        let latitude: [UInt8] = [38, 0, 0, 0, 1, 0, 0, 0, 42, 0, 0, 0, 1, 0, 0, 0, 0xB8, 0x0B, 0, 0, 100, 0, 0, 0]
        #expect(sent.contains(subsequence: latitude) && sent.contains(subsequence: Array("SN-0042-TEST".utf8)))

        let stored = try PhotoInspection().inspect(sent).stored
        for identifying in [
            latitude, Array("SN-0042-TEST".utf8), Array("Exif\0\0".utf8), Array("JFXX".utf8), Array("Caretide-GPS".utf8), thumbnail,
            Array("38.70N".utf8),
        ] {
            #expect(!stored.contains(subsequence: identifying), "\(String(decoding: identifying, as: UTF8.self))")
        }
        // What is left: SOI, the JFIF APP0 with a thumbnail of 0 × 0 and no thumbnail data, Adobe's APP14 cut to its
        // 12 bytes, then the image as sent.
        let jfifWithoutThumbnail = segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 0, 0])
        let adobeCut = segment(0xEE, adobeFields)
        #expect(stored == startOfImage + jfifWithoutThumbnail + adobeCut + image)
        #expect(
            try Codecs.decodeRGB(stored, format: .jpeg, maximumPixels: 1 << 30, maximumScans: 64)
                == Codecs.decodeRGB(sharp, format: .jpeg, maximumPixels: 1 << 30, maximumScans: 64))
    }

    @Test("a JFIF APP0 whose thumbnail runs past its segment, comments and markers libjpeg does not use are dropped")
    func malformedAndUnusedSegments() throws {
        let sharp = try fixture("sharp.jpg")
        let image = Array(sharp[20...])
        // Declares a 16 × 16 thumbnail (768 bytes) and holds 3 of them.
        let shortJFIF = segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 16, 16] + Array("GPS".utf8))
        let comment = segment(0xFE, Array("taken at 38.70N 9.14W".utf8))
        // DNL, which libjpeg skips whatever its length says, holding more than its 2 bytes of line count.
        let numberOfLines = segment(0xDC, [0x01, 0x90] + Array("38.70N".utf8))
        let sent = startOfImage + shortJFIF + comment + numberOfLines + image
        let stripped = try MetadataStripping.stripped(sent, format: .jpeg)
        #expect(stripped.bytes == startOfImage + image)
    }
}
