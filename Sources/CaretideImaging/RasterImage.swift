/// Decoded pixels: rows top to bottom, `channels` bytes a pixel (1 luma, 3 RGB).
public struct RasterImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * channels, "pixel buffer does not match the size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// Luma (ITU-R BT.601: 0.299 R + 0.587 G + 0.114 B) of an RGB image, in integers (weights ×1000).
    public var luma: RasterImage {
        guard channels == 3 else { return self }
        var values = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { rgb in
            for index in 0..<(width * height) {
                let red = Int(rgb[3 * index])
                let green = Int(rgb[3 * index + 1])
                let blue = Int(rgb[3 * index + 2])
                values[index] = UInt8((299 * red + 587 * green + 114 * blue + 500) / 1000)
            }
        }
        return RasterImage(width: width, height: height, channels: 1, pixels: values)
    }

    /// Shrunk by averaging `factor` × `factor` blocks (a box filter); the edge rows and columns that do not fill a
    /// block are left out. `factor` 1 is the image itself.
    public func shrunk(by factor: Int) -> RasterImage {
        precondition(factor >= 1)
        // A block never larger than the image: the factor that fits a long, thin picture's long side to a thumbnail
        // is more than its short side, and its blocks would be read past its last row.
        let factor = min(factor, width, height)
        guard factor > 1 else { return self }
        let newWidth = max(1, width / factor)
        let newHeight = max(1, height / factor)
        let area = factor * factor
        var values = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<newHeight {
                for x in 0..<newWidth {
                    for channel in 0..<channels {
                        var sum = 0
                        for dy in 0..<factor {
                            let row = (y * factor + dy) * width
                            for dx in 0..<factor { sum += Int(source[(row + x * factor + dx) * channels + channel]) }
                        }
                        values[(y * newWidth + x) * channels + channel] = UInt8((sum + area / 2) / area)
                    }
                }
            }
        }
        return RasterImage(width: newWidth, height: newHeight, channels: channels, pixels: values)
    }

    /// ``luma`` shrunk by `factor` (``shrunk(by:)``), the same values, but without a full-size luma image beside this
    /// one: each pixel's luma is rounded as ``luma`` rounds it, then each block averaged as ``shrunk(by:)`` averages it.
    public func lumaShrunk(by factor: Int) -> RasterImage {
        precondition(factor >= 1)
        let factor = min(factor, width, height)  // as in shrunk(by:)
        guard channels == 3, factor > 1 else { return luma.shrunk(by: max(factor, 1)) }
        let newWidth = max(1, width / factor)
        let newHeight = max(1, height / factor)
        let area = factor * factor
        var values = [UInt8](repeating: 0, count: newWidth * newHeight)
        pixels.withUnsafeBufferPointer { rgb in
            for y in 0..<newHeight {
                for x in 0..<newWidth {
                    var sum = 0
                    for dy in 0..<factor {
                        let row = (y * factor + dy) * width
                        for dx in 0..<factor {
                            let index = 3 * (row + x * factor + dx)
                            sum += (299 * Int(rgb[index]) + 587 * Int(rgb[index + 1]) + 114 * Int(rgb[index + 2]) + 500) / 1000
                        }
                    }
                    values[y * newWidth + x] = UInt8((sum + area / 2) / area)
                }
            }
        }
        return RasterImage(width: newWidth, height: newHeight, channels: 1, pixels: values)
    }

    /// Turned and mirrored as an EXIF orientation (1–8, JEITA CP-3451 tag 0x0112) says the stored pixels are to be
    /// shown; 1 (or an unknown value) is the image as it is.
    public func oriented(_ orientation: Int) -> RasterImage {
        guard (2...8).contains(orientation) else { return self }
        let swapsSides = orientation >= 5
        let newWidth = swapsSides ? height : width
        let newHeight = swapsSides ? width : height
        var values = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                // Where the shown pixel (x, y) lies in the stored image.
                let (sourceX, sourceY) =
                    switch orientation {
                    case 2: (width - 1 - x, y)
                    case 3: (width - 1 - x, height - 1 - y)
                    case 4: (x, height - 1 - y)
                    case 5: (y, x)
                    case 6: (y, height - 1 - x)
                    case 7: (width - 1 - y, height - 1 - x)
                    default: (width - 1 - y, x)
                    }
                let from = (sourceY * width + sourceX) * channels
                let to = (y * newWidth + x) * channels
                for channel in 0..<channels { values[to + channel] = pixels[from + channel] }
            }
        }
        return RasterImage(width: newWidth, height: newHeight, channels: channels, pixels: values)
    }

    /// The smallest whole shrink factor that brings the longer side to at most `side`.
    public func factor(toFit side: Int) -> Int {
        max(1, (max(width, height) + side - 1) / side)
    }
}
