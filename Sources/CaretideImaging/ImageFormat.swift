/// The image formats a photo may come in, recognised by their first bytes (the file's own signature, never its name
/// or the Content-Type a client declares).
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, heif

    /// The media type an image of this format is served with.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heif: "image/heif"
        }
    }

    /// HEIF brands of still images coded with HEVC, or of the format itself (ISO/IEC 23008-12 Annex B; `mif1`).
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1"]

    /// The format whose signature `bytes` start with: JPEG's SOI marker and the first marker's FF (ITU-T T.81 B.1.1.2);
    /// PNG's 8-byte signature (PNG specification 5.2); an ISO base media file whose `ftyp` box names a HEIF brand.
    /// Nil for anything else.
    public init?(signatureOf bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF {
            self = .jpeg
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.count == 12, Array(head[4..<8]) == Array("ftyp".utf8),
            Self.heifBrands.contains(String(decoding: head[8..<12], as: UTF8.self))
        {
            self = .heif
        } else {
            return nil
        }
    }
}
