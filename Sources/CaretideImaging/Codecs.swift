import CImageCodecs

/// Swift over the C wrappers of libjpeg-turbo and libpng (`CImageCodecs`): sizes from headers, decoding with a pixel
/// budget, JPEG encoding.
public enum Codecs {
    public enum Failure: Error, Equatable {
        /// Not a decodable image of its format; the library's own words.
        case invalid(String)
        case tooManyPixels(String)
        case tooManyScans
        /// Decoding would hold more than ``workingMemory(maximumPixels:)`` (a large progressive JPEG or HEIF photo).
        case tooMuchMemory(String)
        case noMemory
    }

    /// What a decode may hold: 3 bytes a pixel of the largest photo allowed, the RGB pixels of that photo. A PNG's
    /// decode holds its pixels; a JPEG's, read at a fraction of its size, holds few, but a progressive JPEG keeps every
    /// coefficient until its last scan (6 bytes a pixel in 4:4:4), so libjpeg is held to this too; a HEIF's holds
    /// ``heifBytesPerPixel``.
    public static func workingMemory(maximumPixels: Int) -> Int {
        let (bytes, overflow) = maximumPixels.multipliedReportingOverflow(by: 3)
        return overflow ? Int.max : bytes
    }

    /// What decoding a HEIF photo holds at its peak, a pixel: libde265's picture and libheif's YCbCr copy of it (1.5
    /// bytes each in 4:2:0) while libheif converts it to RGB (3), and then that RGB and the copy the checks keep
    /// (BENCHMARKS.md, "Photo decoders trust no length or size a file declares"). So a HEIF photo may have half the
    /// pixels of the others.
    static let heifBytesPerPixel = 6

    /// The width and height the header declares, read without decoding a pixel.
    /// A PNG's chunks are walked first (``PNGChunks``), so that libpng never reads one that runs past the end of the
    /// file; ``decodeRGB(_:format:scale:maximumPixels:maximumScans:)`` reads the size here before it decodes.
    public static func size(of bytes: [UInt8], format: ImageFormat) throws(Failure) -> (width: Int, height: Int) {
        if format == .png {
            do { _ = try PNGChunks.walk(bytes) } catch { throw .invalid(error.reason) }
        }
        var width: Int32 = 0
        var height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { data in
            switch format {
            case .jpeg: ct_jpeg_size(data.baseAddress, data.count, &width, &height, &message, message.count)
            case .png: ct_png_size(data.baseAddress, data.count, &width, &height, &message, message.count)
            case .heif: ct_heif_size(data.baseAddress, data.count, &width, &height, &message, message.count)
            }
        }
        try check(status, message)
        return (Int(width), Int(height))
    }

    /// The pixels, RGB, at 1/`scale` of the size for a JPEG (1, 2, 4 or 8; PNG and HEIF are always decoded whole;
    /// HEIF comes out turned as the file declares). Refuses a
    /// header of more than `maximumPixels` before decoding, and a JPEG of more than `maximumScans` scans.
    public static func decodeRGB(_ bytes: [UInt8], format: ImageFormat, scale: Int = 1, maximumPixels: Int, maximumScans: Int) throws(Failure)
        -> RasterImage
    {
        if format == .heif {
            // ct_heif_decode holds both the size the file declares and the picture its HEVC stream declares (which
            // need not match) to the limit, before decoding.
            let memory = workingMemory(maximumPixels: maximumPixels)
            do {
                return try decodeHEIF(bytes, maximumPixels: memory / heifBytesPerPixel)
            } catch .tooManyPixels(let size) {
                throw .tooMuchMemory("a HEIF photo of \(size) needs more than \(memory) bytes to decode")
            }
        }
        // A JPEG or PNG is decoded straight into the array the image keeps: its size follows from the header (libjpeg
        // divides each side by the scale, rounding up), so the pixels are never held twice, as a C buffer and its copy.
        let scale = format == .jpeg ? max(scale, 1) : 1
        let declared = try size(of: bytes, format: format)
        guard declared.width * declared.height <= maximumPixels else { throw .tooManyPixels("\(declared.width)x\(declared.height) pixels") }
        let width = (declared.width + scale - 1) / scale
        let height = (declared.height + scale - 1) / scale
        let count = width * height * 3
        var decodedWidth: Int32 = 0
        var decodedHeight: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        var status = CT_INVALID
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = bytes.withUnsafeBufferPointer { data in
                switch format {
                case .jpeg:
                    ct_jpeg_decode(
                        data.baseAddress, data.count, 0, Int32(scale), Int64(maximumPixels), Int32(maximumScans),
                        Int64(workingMemory(maximumPixels: maximumPixels)), buffer.baseAddress, count, &decodedWidth, &decodedHeight, &message,
                        message.count)
                default:
                    ct_png_decode(
                        data.baseAddress, data.count, 0, Int64(maximumPixels), buffer.baseAddress, count, &decodedWidth, &decodedHeight,
                        &message, message.count)
                }
            }
            // The C side fills every byte or fails.
            initialized = status == CT_OK ? count : 0
        }
        try check(status, message)
        guard Int(decodedWidth) == width, Int(decodedHeight) == height else {
            throw .invalid("it decoded to \(decodedWidth)x\(decodedHeight) pixels, not the \(width)x\(height) its header declares")
        }
        return RasterImage(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// HEIF's size is certain only once decoded (a clean aperture's rounding), so libheif's pixels are copied here;
    /// the C side has let go of its own before.
    static func decodeHEIF(_ bytes: [UInt8], maximumPixels: Int) throws(Failure) -> RasterImage {
        var decoded = ct_pixels()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { data in
            ct_heif_decode(data.baseAddress, data.count, Int64(maximumPixels), &decoded, &message, message.count)
        }
        try check(status, message)
        defer { ct_free(decoded.pixels) }
        let count = Int(decoded.width) * Int(decoded.height) * Int(decoded.components)
        return RasterImage(
            width: Int(decoded.width), height: Int(decoded.height), channels: Int(decoded.components),
            pixels: Array(UnsafeBufferPointer(start: decoded.pixels, count: count)))
    }

    /// A baseline JPEG of the pixels.
    public static func encodeJPEG(_ image: RasterImage, quality: Int) throws(Failure) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            ct_jpeg_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels), Int32(quality), &output, &length, &message,
                message.count)
        }
        try check(status, message)
        defer { ct_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    private static func check(_ status: ct_status, _ message: [CChar]) throws(Failure) {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case CT_OK: return
        case CT_TOO_MANY_PIXELS: throw .tooManyPixels(text)
        case CT_TOO_MANY_SCANS: throw .tooManyScans
        case CT_TOO_MUCH_MEMORY: throw .tooMuchMemory(text)
        case CT_NO_MEMORY: throw .noMemory
        default: throw .invalid(text)
        }
    }
}
