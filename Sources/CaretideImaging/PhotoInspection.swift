/// The checks a skin photo passes before anything of it is stored, in the order they cost: size in bytes, the
/// format by its signature, the pixel count from the header (a decompression bomb is refused before a pixel is
/// decoded), the smallest side, a full decode (a file that does not decode is not a photo), sharpness, the presence of
/// skin (``SkinPresence``: a photo of a chair is refused, one it is unsure of accepted and said so). A photo that
/// passes is stored without its identifying metadata, with a thumbnail: a JPEG or PNG as sent, less its metadata
/// segments; a HEIF photo as a JPEG of its pixels (quality 92), because its metadata items cannot be cut out of the
/// container as simply, and because browsers other than Safari cannot show HEIF.
public struct PhotoInspection: Sendable {
    /// What an operator may set, and what they default to.
    public struct Limits: Sendable, Equatable {
        /// The largest file accepted (`PHOTO_MAX_BYTES`).
        public var maximumBytes: Int
        /// The most pixels a header may declare (`PHOTO_MAX_PIXELS`): bounds the memory and time of a decode.
        public var maximumPixels: Int
        /// The fewest pixels either side may have: 299, the input size of the classifiers of the melanoma literature
        /// (Inception v3, as in Esteva A et al. Nature 2017;542:115–118).
        public var minimumSide: Int
        /// The lowest sharpness accepted (``Sharpness``); docs/operations.md gives the measure on the fixtures.
        public var minimumSharpness: Double
        /// The most scans a progressive JPEG may have (libjpeg-turbo's advice against files built to be slow).
        public var maximumScans: Int

        public static let standard = Limits(
            maximumBytes: 15 * 1024 * 1024, maximumPixels: 50_000_000, minimumSide: 299, minimumSharpness: 20, maximumScans: 64)

        public init(maximumBytes: Int, maximumPixels: Int, minimumSide: Int, minimumSharpness: Double, maximumScans: Int) {
            self.maximumBytes = maximumBytes
            self.maximumPixels = maximumPixels
            self.minimumSide = minimumSide
            self.minimumSharpness = minimumSharpness
            self.maximumScans = maximumScans
        }
    }

    /// Why a photo is refused; `message` is what the 422 says.
    public enum Refusal: Error, Equatable, Sendable {
        case tooLarge(bytes: Int, maximum: Int)
        case notAnImage
        case tooManyPixels(width: Int, height: Int, maximum: Int)
        case tooSmall(width: Int, height: Int, minimum: Int)
        case doesNotDecode(String)
        case blurred(sharpness: Double, minimum: Double)
        case noSkin(skinFraction: Double)

        /// A stable word for the problem, for clients and metrics.
        public var code: String {
            switch self {
            case .tooLarge: "tooLarge"
            case .notAnImage: "notAnImage"
            case .tooManyPixels: "tooManyPixels"
            case .tooSmall: "tooSmall"
            case .doesNotDecode: "doesNotDecode"
            case .blurred: "blurred"
            case .noSkin: "noSkin"
            }
        }

        public var message: String {
            switch self {
            case .tooLarge(let bytes, let maximum): "the file is \(bytes) bytes; at most \(maximum) are accepted"
            case .notAnImage: "is not a JPEG, PNG or HEIF image (judged by the file's own signature, not its name or type)"
            case .tooManyPixels(let width, let height, let maximum):
                "declares \(width) × \(height) pixels; at most \(maximum) pixels are accepted (refused without decoding)"
            case .tooSmall(let width, let height, let minimum): "is \(width) × \(height) pixels; each side must be at least \(minimum)"
            case .doesNotDecode(let reason): "does not decode as an image: \(reason)"
            case .blurred(let sharpness, let minimum):
                // bounded: the variance of 8-bit Laplacians (under 2^20), and the operator's minimum, a setting.
                "is too blurred to compare (sharpness \(Int(sharpness.rounded())), at least \(Int(minimum)) needed): hold still, and focus on the mole"
            case .noSkin(let fraction):
                // bounded: a share of pixels, 0–1.
                "shows no skin (\(Int((fraction * 100).rounded())) % of it has a skin colour, at least \(Int(SkinPresence.refusedBelow * 100)) % needed): photograph the mole with the skin around it"
            }
        }
    }

    /// A photo that passed, ready to store.
    public struct Inspected: Sendable {
        /// The format sent.
        public let format: ImageFormat
        /// The format stored: JPEG for a HEIF photo, else the format sent.
        public var storedFormat: ImageFormat { format == .heif ? .jpeg : format }
        public let width: Int
        public let height: Int
        /// The file without its identifying metadata (``MetadataStripping``).
        public let stored: [UInt8]
        /// A JPEG whose longer side is at most ``thumbnailSide``.
        public let thumbnail: [UInt8]
        public let sharpness: Double
        /// Whether it shows skin: skin or unsure (a refused photo is never inspected).
        public let skin: SkinPresence.Measure
    }

    public static let thumbnailSide = 256
    public let limits: Limits

    public init(limits: Limits = .standard) {
        self.limits = limits
    }

    public func inspect(_ bytes: [UInt8]) throws(Refusal) -> Inspected {
        guard bytes.count <= limits.maximumBytes else { throw .tooLarge(bytes: bytes.count, maximum: limits.maximumBytes) }
        guard let format = ImageFormat(signatureOf: bytes) else { throw .notAnImage }
        let (width, height): (Int, Int)
        do {
            (width, height) = try Codecs.size(of: bytes, format: format)
        } catch {
            throw .doesNotDecode(Self.reason(error))
        }
        guard width * height <= limits.maximumPixels else { throw .tooManyPixels(width: width, height: height, maximum: limits.maximumPixels) }
        guard min(width, height) >= limits.minimumSide else { throw .tooSmall(width: width, height: height, minimum: limits.minimumSide) }
        // A JPEG is decoded at the largest DCT scale that keeps the longer side at or above the working size: every
        // coefficient is still read (a corrupt file still fails), at a fraction of the pixels.
        let scale = [8, 4, 2, 1].first { max(width, height) / $0 >= Sharpness.workingSide } ?? 1
        let decoded: RasterImage
        do {
            decoded = try Codecs.decodeRGB(
                bytes, format: format, scale: format == .jpeg ? scale : 1, maximumPixels: limits.maximumPixels, maximumScans: limits.maximumScans)
        } catch .tooManyPixels {
            throw .tooManyPixels(width: width, height: height, maximum: limits.maximumPixels)
        } catch {
            throw .doesNotDecode(Self.reason(error))
        }
        let sharpness = Sharpness.measure(decoded)
        guard sharpness >= limits.minimumSharpness else { throw .blurred(sharpness: sharpness, minimum: limits.minimumSharpness) }
        let skin = SkinPresence.measure(decoded)
        guard skin.verdict != .noSkin else { throw .noSkin(skinFraction: skin.skinFraction) }
        let stripped: MetadataStripping.Stripped
        do {
            stripped =
                format == .heif
                ? MetadataStripping.Stripped(bytes: try Codecs.encodeJPEG(decoded, quality: 92), orientation: 1)
                : try MetadataStripping.stripped(bytes, format: format)
        } catch let error as MetadataStripping.Malformed {
            throw .doesNotDecode(error.reason)
        } catch {
            throw .doesNotDecode("it could not be stored as a JPEG")
        }
        let thumbnail: [UInt8]
        do {
            // The thumbnail carries no EXIF, so it is turned the way the photo's orientation says it is shown.
            let small = decoded.shrunk(by: decoded.factor(toFit: Self.thumbnailSide)).oriented(stripped.orientation)
            thumbnail = try Codecs.encodeJPEG(small, quality: 80)
        } catch {
            throw .doesNotDecode(Self.reason(error))
        }
        let stored = stripped.bytes
        return Inspected(
            format: format, width: width, height: height, stored: stored, thumbnail: thumbnail, sharpness: sharpness, skin: skin)
    }

    static func reason(_ error: Codecs.Failure) -> String {
        switch error {
        case .invalid(let text): text.isEmpty ? "the image data is damaged" : text
        case .tooManyPixels(let text): text
        case .tooManyScans: "a progressive JPEG with more scans than allowed"
        case .tooMuchMemory(let text): text + ", more than a photo check may use: send it as a baseline JPEG"
        case .noMemory: "not enough memory to decode it"
        }
    }
}
