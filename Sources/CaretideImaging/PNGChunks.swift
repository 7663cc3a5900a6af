/// The chunks of a PNG file (PNG specification 5.3: a 4-byte length, a 4-byte type, the data, a 4-byte CRC), walked
/// from the signature to IEND without reading their data.
///
/// libpng allocates a chunk's declared length before it reads the chunk's data, so a few hundred bytes whose text
/// chunk declares gigabytes make it ask for them. Every PNG is walked here first: a file whose chunks do not fit in its
/// own bytes never reaches libpng, which then allocates at most the size of the upload per chunk.
enum PNGChunks {
    struct Chunk {
        let type: String
        /// The whole chunk: length, type, data and CRC.
        let bytes: Range<Int>
    }

    /// The chunks up to and including IEND; throws when a chunk runs past the end of the file or there is no IEND.
    static func walk(_ bytes: [UInt8]) throws(MetadataStripping.Malformed) -> [Chunk] {
        guard ImageFormat(signatureOf: bytes) == .png else { throw .init(reason: "no PNG signature") }
        var chunks: [Chunk] = []
        var position = 8
        while position + 12 <= bytes.count {
            // At most 2^32 - 1 and position below the file's size: the sum cannot overflow.
            let length = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let end = position + 12 + length
            guard end <= bytes.count else { throw .init(reason: "a PNG chunk runs past the end of the file") }
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            chunks.append(Chunk(type: type, bytes: position..<end))
            if type == "IEND" { return chunks }
            position = end
        }
        throw .init(reason: "the PNG file has no IEND chunk")
    }
}
