import Foundation
import Testing

@testable import CaretideImaging

/// A fixture of `Fixtures/` (made by scripts/make-photo-fixtures), as bytes.
func fixture(_ name: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return Array(try Data(contentsOf: url))
}

func refusal(_ bytes: [UInt8], limits: PhotoInspection.Limits = .standard) -> PhotoInspection.Refusal? {
    do {
        _ = try PhotoInspection(limits: limits).inspect(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("Photo checks: real images through libjpeg-turbo and libpng")
struct PhotoInspectionTests {
    @Test("a sharp JPEG, a progressive JPEG and a PNG pass, with their size, a sharpness far above the threshold and a JPEG thumbnail")
    func sharpPhotosPass() throws {
        for (name, format, width, height) in [
            ("sharp.jpg", ImageFormat.jpeg, 480, 400), ("progressive.jpg", .jpeg, 480, 400), ("sharp.png", .png, 360, 300),
            ("png-named.jpg", .png, 360, 300),
        ] {
            let inspected = try PhotoInspection().inspect(try fixture(name))
            #expect(inspected.format == format && inspected.width == width && inspected.height == height, "\(name)")
            #expect(inspected.sharpness > 10 * PhotoInspection.Limits.standard.minimumSharpness, "\(name): \(inspected.sharpness)")
            #expect(ImageFormat(signatureOf: inspected.thumbnail) == .jpeg)
            let thumbnail = try Codecs.size(of: inspected.thumbnail, format: .jpeg)
            #expect(max(thumbnail.width, thumbnail.height) <= PhotoInspection.thumbnailSide, "\(name)")
            #expect(
                thumbnail.width * height == thumbnail.height * width || abs(thumbnail.width * height - thumbnail.height * width) < width, "\(name)")
        }
    }

    @Test("a progressive JPEG of more scans than allowed is refused while it decodes (a file built to be slow); at the limit it passes")
    func scanLimit() throws {
        let progressive = try fixture("progressive.jpg")
        // Its scans, counted by their start-of-scan markers (0xFF 0xDA; in entropy-coded data 0xFF is always stuffed).
        let scans = zip(progressive, progressive.dropFirst()).filter { $0 == (0xFF, 0xDA) }.count
        #expect(scans > 1, "not a progressive JPEG: \(scans) scan(s)")
        var limits = PhotoInspection.Limits.standard
        limits.maximumScans = scans
        #expect(refusal(progressive, limits: limits) == nil)
        limits.maximumScans = scans - 1
        #expect(refusal(progressive, limits: limits) == .doesNotDecode("a progressive JPEG with more scans than allowed"))
        // A baseline JPEG is one scan.
        limits.maximumScans = 1
        #expect(refusal(try fixture("sharp.jpg"), limits: limits) == nil)
    }

    @Test("a progressive JPEG whose coefficients would take more than 3 bytes a pixel of the limit is refused before libjpeg holds them")
    func progressiveMemory() throws {
        // 480 × 400 in 4:2:0: a progressive decode keeps 2 bytes per sample of every block until its last scan, 3 bytes a
        // pixel, so with the limit at its own size its coefficients and libjpeg's tables do not fit in 3 bytes a pixel.
        let progressive = try fixture("progressive.jpg")
        var limits = PhotoInspection.Limits.standard
        limits.maximumPixels = 480 * 400
        #expect(
            refusal(progressive, limits: limits)
                == .doesNotDecode(
                    "a progressive JPEG of 480x400 pixels needs more than 576000 bytes to decode, more than a photo check may use: send it as a baseline JPEG"
                ))
        // A baseline JPEG of the same size is read a band of rows at a time, and passes at that limit.
        #expect(refusal(try fixture("sharp.jpg"), limits: limits) == nil)
        limits.maximumPixels = 2 * 480 * 400
        #expect(refusal(progressive, limits: limits) == nil)
    }

    @Test("a HEIF photo is decoded by libheif and stored as a JPEG of its pixels, with no HEIF box left")
    func heif() throws {
        let heic = try fixture("sharp.heic")
        #expect(ImageFormat(signatureOf: heic) == .heif)
        let inspected = try PhotoInspection().inspect(heic)
        #expect(inspected.format == .heif && inspected.storedFormat == .jpeg)
        #expect(inspected.width == 480 && inspected.height == 400 && inspected.sharpness > 200)
        #expect(ImageFormat(signatureOf: inspected.stored) == .jpeg)
        #expect(try Codecs.size(of: inspected.stored, format: .jpeg) == (480, 400))
        // Truncated, it does not decode.
        #expect(refusal(Array(heic.prefix(heic.count / 2)))?.code == "doesNotDecode")
    }

    @Test("a HEIF photo may have half the pixels of the others (its decoding holds 6 bytes a pixel); beyond, it is refused before decoding")
    func heifMemory() throws {
        let heic = try fixture("sharp.heic")
        var limits = PhotoInspection.Limits.standard
        limits.maximumPixels = 2 * 480 * 400
        #expect(refusal(heic, limits: limits) == nil)
        limits.maximumPixels = 2 * 480 * 400 - 1
        #expect(
            refusal(heic, limits: limits)
                == .doesNotDecode(
                    "a HEIF photo of 480x400 pixels needs more than 1151997 bytes to decode, more than a photo check may use: send it as a baseline JPEG"
                ))
    }

    @Test("a HEIF photo whose HEVC stream declares a larger picture than its ispe box is refused before libde265 allocates it")
    func heifPictureLargerThanDeclared() throws {
        var heic = try fixture("sharp.heic")
        // The ispe box says 48 × 40; the stream's sequence parameter set still says 480 × 400.
        let ispe = try #require(heic.firstRange(of: Array("ispe".utf8)))
        // After the box's type: its version and flags (4 bytes), then the width and the height (4 bytes each).
        heic.replaceSubrange((ispe.upperBound + 4)..<(ispe.upperBound + 12), with: withLength(48) + withLength(40))
        var limits = PhotoInspection.Limits.standard
        limits.minimumSide = 1
        limits.maximumPixels = 20_000
        #expect(refusal(heic, limits: limits) == .doesNotDecode("Corrupt HEVC data: a picture of 480x400 pixels, more than the 10000 allowed"))
        // Under a limit its true size fits, the same file decodes (and goes on to the other checks).
        limits.maximumPixels = 2 * 480 * 400
        #expect(refusal(heic, limits: limits)?.code != "doesNotDecode")
    }

    @Test("a HEIF photo with damaged coded data is refused, naming the damage, not judged by the garbage it decodes to")
    func damagedHEIF() throws {
        let heic = try fixture("sharp.heic")
        // 64 bytes flipped in the middle of the 'mdat' payload: the coded picture (one HEVC slice in sharp.heic).
        // libde265 conceals the damage and carries on; undetected, the garbage blocks measure sharper than the photo.
        let coded = try #require(boxPayload("mdat", in: heic))
        let start = coded.lowerBound + coded.count / 2
        var damaged = heic
        for index in start..<(start + 64) { damaged[index] ^= 0xFF }
        guard case .doesNotDecode(let reason) = refusal(damaged) else {
            Issue.record("the damaged HEIF photo was not refused as damaged: \(String(describing: refusal(damaged)))")
            return
        }
        #expect(reason.hasPrefix("Corrupt HEVC data: "), "\(reason)")
        // The photo itself still passes: the check refuses damage, not HEIF.
        #expect(refusal(heic) == nil)
    }

    @Test("each refusal names its problem: not an image, too small, blurred, too many bytes, a decompression bomb refused from its header")
    func refusals() throws {
        #expect(refusal(try fixture("not-an-image.jpg")) == .notAnImage)
        #expect(refusal(try fixture("too-small.jpg")) == .tooSmall(width: 298, height: 400, minimum: 299))
        guard case .blurred(let sharpness, let minimum) = refusal(try fixture("blurred.jpg")) else {
            Issue.record("the blurred photo passed")
            return
        }
        #expect(sharpness < minimum / 10)
        let sharp = try fixture("sharp.jpg")
        var limits = PhotoInspection.Limits.standard
        limits.maximumBytes = sharp.count - 1
        #expect(refusal(sharp, limits: limits) == .tooLarge(bytes: sharp.count, maximum: sharp.count - 1))
        // 20,000 × 20,000 pixels declared in 390 KB: refused from IHDR, never decoded (decoding would take 400 MB).
        #expect(refusal(try fixture("bomb.png")) == .tooManyPixels(width: 20_000, height: 20_000, maximum: 50_000_000))
        // At the limit itself a photo passes: the comparison is "more than".
        limits = .standard
        limits.maximumPixels = 480 * 400
        #expect(refusal(sharp, limits: limits) == nil)
        limits.maximumPixels = 480 * 400 - 1
        #expect(refusal(sharp, limits: limits)?.code == "tooManyPixels")
        limits = .standard
        limits.minimumSide = 400
        #expect(refusal(sharp, limits: limits) == nil)
        limits.minimumSide = 401
        #expect(refusal(sharp, limits: limits) == .tooSmall(width: 480, height: 400, minimum: 401))
    }

    @Test("a damaged file is refused by the decoder: truncated, corrupted in its entropy data, a JPEG signature on nothing")
    func damaged() throws {
        let sharp = try fixture("sharp.jpg")
        let truncated = Array(sharp.prefix(sharp.count / 2))
        #expect(refusal(truncated)?.code == "doesNotDecode")
        #expect(refusal([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02])?.code == "doesNotDecode")
        let png = try fixture("sharp.png")
        #expect(refusal(Array(png.prefix(png.count / 2)))?.code == "doesNotDecode")
    }

    @Test("a PNG whose chunk declares more bytes than the file holds is refused before libpng reads it (libpng would allocate them)")
    func pngChunkPastTheEnd() throws {
        let png = try fixture("sharp.png")
        let ihdrEnd = 8 + 12 + 13
        // An iTXt chunk declaring 1.8 GB, followed by a few bytes: what the parser fuzzer found making libpng ask for it.
        let declared = Array(png[..<ihdrEnd]) + withLength(0x6C61_7045) + Array("iTXt".utf8) + Array(repeating: 0x41, count: 64)
        #expect(refusal(declared) == .doesNotDecode("a PNG chunk runs past the end of the file"))
        #expect(throws: Codecs.Failure.invalid("a PNG chunk runs past the end of the file")) { try Codecs.size(of: declared, format: .png) }
        // The same file with the chunk's length true still passes the walk (and libpng then reads it).
        let text = Array(("Comment\0" + "fine").utf8)
        var chunk = withLength(text.count) + Array("tEXt".utf8) + text
        chunk += crc32(Array(chunk[4...]))
        #expect(refusal(Array(png[..<ihdrEnd]) + chunk + Array(png[ihdrEnd...])) == nil)
    }

    @Test("EXIF GPS, the serial number, make and model are not stored; the pixels are the same bytes; the orientation survives")
    func metadataStripped() throws {
        let original = try fixture("gps-exif.jpg")
        #expect(original.contains(subsequence: Array("SN-0042-TEST".utf8)))
        let inspected = try PhotoInspection().inspect(original)
        for identifying in ["SN-0042-TEST", "Caretide Test", "Fixture Cam", "Exif\0\0"] {
            #expect(!inspected.stored.contains(subsequence: Array(identifying.utf8)), "\(identifying)")
        }
        // Only the APP1 segment went: the stored file is the original without it, and decodes to the same pixels.
        let sharp = try fixture("sharp.jpg")
        #expect(
            try Codecs.decodeRGB(inspected.stored, format: .jpeg, maximumPixels: 1 << 30, maximumScans: 64)
                == Codecs.decodeRGB(original, format: .jpeg, maximumPixels: 1 << 30, maximumScans: 64))
        #expect(inspected.stored.count < original.count && abs(inspected.stored.count - sharp.count) < 64)

        // An orientation other than 1 is kept as a minimal EXIF segment holding that tag alone, and the thumbnail is
        // turned: orientation 6 (shown turned 90° clockwise) makes a 480 × 400 photo's thumbnail portrait.
        let turned = replacingOrientation(in: original, with: 6)
        let stripped = try MetadataStripping.stripped(turned, format: .jpeg)
        #expect(stripped.orientation == 6)
        #expect(!stripped.bytes.contains(subsequence: Array("SN-0042-TEST".utf8)))
        let segment = try #require(MetadataStripping.segments(stripped.bytes).first { $0.marker == 0xE1 })
        #expect(MetadataStripping.exifOrientation(stripped.bytes[segment.range]) == 6)
        let thumbnail = try Codecs.size(of: try PhotoInspection().inspect(turned).thumbnail, format: .jpeg)
        #expect(thumbnail.height > thumbnail.width)
    }

    @Test("a PNG keeps its critical and colour chunks and loses text, eXIf and time")
    func pngChunks() throws {
        let png = try fixture("sharp.png")
        // Insert a tEXt chunk (keyword "Location", text "38.7N 9.1W") after IHDR: it must not be stored.
        let text = Array(("Location\0" + "38.7N 9.1W").utf8)
        var chunk = withLength(text.count) + Array("tEXt".utf8) + text
        chunk += crc32(Array(chunk[4...]))
        let ihdrEnd = 8 + 12 + 13
        let tagged = Array(png[..<ihdrEnd]) + chunk + Array(png[ihdrEnd...])
        let inspected = try PhotoInspection().inspect(tagged)
        #expect(!inspected.stored.contains(subsequence: Array("38.7N".utf8)))
        #expect(inspected.stored == png)
    }

    @Test("the sharpness measure: a flat image is 0, a checkerboard is high, shrinking by a box filter averages blocks")
    func sharpnessMeasure() {
        let flat = RasterImage(width: 8, height: 8, channels: 1, pixels: [UInt8](repeating: 128, count: 64))
        #expect(Sharpness.varianceOfLaplacian(flat) == 0)
        let board = RasterImage(width: 8, height: 8, channels: 1, pixels: (0..<64).map { ($0 / 8 + $0 % 8) % 2 == 0 ? 0 : 255 })
        // Every interior Laplacian is ±4 × 255 = ±1020 alternating: mean 0, variance 1020².
        #expect(Sharpness.varianceOfLaplacian(board) == 1020 * 1020)
        #expect(board.shrunk(by: 2).pixels.allSatisfy { $0 == 128 })
        let rgb = RasterImage(width: 1, height: 1, channels: 3, pixels: [255, 0, 0])
        #expect(rgb.luma.pixels == [76])
    }

    @Test("the luma at the working size, taken straight from RGB, is the full-size luma shrunk, value for value")
    func lumaShrunk() throws {
        // 480 × 400, and 298 × 400: blocks that do not divide the sides leave the same edges out.
        for name in ["sharp.jpg", "too-small.jpg"] {
            let decoded = try Codecs.decodeRGB(try fixture(name), format: .jpeg, maximumPixels: 1 << 30, maximumScans: 64)
            for factor in [1, 2, 3, 7] {
                #expect(decoded.lumaShrunk(by: factor) == decoded.luma.shrunk(by: factor), "\(name), factor \(factor)")
            }
        }
    }

    @Test("a long, thin picture shrunk by more than its short side: blocks of its short side, read within it")
    func thinPictureShrunk() {
        // 10 × 2 by 4: the blocks were 4 rows deep, two of them past the last row (a thumbnail of a 167000 × 299 PNG).
        let thin = RasterImage(width: 10, height: 2, channels: 3, pixels: (0..<60).map { UInt8($0) })
        let small = thin.shrunk(by: 4)
        #expect(small.width == 5 && small.height == 1 && small.channels == 3)
        // The first block is the pixels at columns 0–1 of both rows, channel by channel: 0, 3, 30, 33 → 17 (rounded).
        let expected: [UInt8] = [17, 18, 19]
        #expect(Array(small.pixels.prefix(3)) == expected)
        #expect(thin.lumaShrunk(by: 4) == thin.luma.shrunk(by: 4))
        #expect(thin.lumaShrunk(by: 4).width == 5)
    }

    @Test("orientations 1–8 map the corners as JEITA CP-3451 says")
    func orientations() {
        // A 3 × 2 image: top row 1 2 3, bottom row 4 5 6.
        let image = RasterImage(width: 3, height: 2, channels: 1, pixels: [1, 2, 3, 4, 5, 6])
        let expected: [Int: (Int, Int, [UInt8])] = [
            1: (3, 2, [1, 2, 3, 4, 5, 6]), 2: (3, 2, [3, 2, 1, 6, 5, 4]), 3: (3, 2, [6, 5, 4, 3, 2, 1]), 4: (3, 2, [4, 5, 6, 1, 2, 3]),
            5: (2, 3, [1, 4, 2, 5, 3, 6]), 6: (2, 3, [4, 1, 5, 2, 6, 3]), 7: (2, 3, [6, 3, 5, 2, 4, 1]), 8: (2, 3, [3, 6, 2, 5, 1, 4]),
        ]
        for (orientation, (width, height, pixels)) in expected {
            let shown = image.oriented(orientation)
            #expect(shown.width == width && shown.height == height && shown.pixels == pixels, "orientation \(orientation)")
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}

/// The JPEG with the orientation value of its EXIF IFD0 replaced (the fixture's EXIF holds orientation 1).
func replacingOrientation(in jpeg: [UInt8], with orientation: UInt8) -> [UInt8] {
    var bytes = jpeg
    // The tag 0x0112, type SHORT (3), count 1, in either byte order; the value follows the 4-byte count.
    for index in 0..<(bytes.count - 12) {
        if bytes[index...].starts(with: [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]) {
            bytes[index + 9] = orientation
            return bytes
        }
        if bytes[index...].starts(with: [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00]) {
            bytes[index + 8] = orientation
            return bytes
        }
    }
    return bytes
}

/// Where the payload of the first top-level box of `type` lies in an ISO base media file (ISO/IEC 14496-12 4.2: a
/// 32-bit big-endian size that counts the 8-byte header, then the type; size 1 means a 64-bit size follows the type,
/// 0 that the box runs to the end of the file).
func boxPayload(_ type: String, in bytes: [UInt8]) -> Range<Int>? {
    var at = 0
    while at + 8 <= bytes.count {
        var size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
        var header = 8
        if size == 1 {
            guard at + 16 <= bytes.count else { return nil }
            size = bytes[(at + 8)..<(at + 16)].reduce(0) { $0 << 8 | Int($1) }
            header = 16
        } else if size == 0 {
            size = bytes.count - at
        }
        guard size >= header, size <= bytes.count - at else { return nil }
        if Array(bytes[(at + 4)..<(at + 8)]) == Array(type.utf8) { return (at + header)..<(at + size) }
        at += size
    }
    return nil
}

func withLength(_ length: Int) -> [UInt8] {
    [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
}

/// The CRC-32 of the PNG specification (annex D), over a chunk's type and data.
func crc32(_ bytes: [UInt8]) -> [UInt8] {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    return withLength(Int(crc))
}
