/// How sharp a photo is: the variance of its Laplacian (Pech-Pacheco JL, Cristóbal G, Chamorro-Martínez J,
/// Fernández-Valdivia J. Diatom autofocusing in brightfield microscopy: a comparative study. ICPR 2000, vol. 3,
/// 314–317). A blurred image has weak edges, so the second derivative varies little.
///
/// Measured on the luma at a working size (the longer side shrunk to at most ``workingSide`` pixels by a box filter),
/// so one threshold serves photos of every resolution: at full resolution a phone photo's noise alone would pass.
public enum Sharpness {
    /// The longer side, in pixels, the measure is taken at.
    public static let workingSide = 1024

    /// The variance of the 3 × 3 Laplacian [0 1 0; 1 −4 1; 0 1 0] over the interior pixels of a luma image.
    public static func varianceOfLaplacian(_ image: RasterImage) -> Double {
        precondition(image.channels == 1, "the measure is taken on luma")
        let width = image.width
        let height = image.height
        guard width >= 3, height >= 3 else { return 0 }
        var sum = 0.0
        var sumOfSquares = 0.0
        image.pixels.withUnsafeBufferPointer { luma in
            for y in 1..<(height - 1) {
                let row = y * width
                for x in 1..<(width - 1) {
                    let centre = row + x
                    let laplacian =
                        Int(luma[centre - width]) + Int(luma[centre + width]) + Int(luma[centre - 1]) + Int(luma[centre + 1])
                        - 4 * Int(luma[centre])
                    let value = Double(laplacian)
                    sum += value
                    sumOfSquares += value * value
                }
            }
        }
        let count = Double((width - 2) * (height - 2))
        let mean = sum / count
        return sumOfSquares / count - mean * mean
    }

    /// The measure of an RGB or luma image at the working size.
    public static func measure(_ image: RasterImage) -> Double {
        // The luma at the working size straight from the RGB: a full-size luma image would add a byte a pixel to the
        // three the RGB already holds.
        varianceOfLaplacian(image.lumaShrunk(by: image.factor(toFit: workingSide)))
    }
}
