import Foundation

/// Whether a photo shows skin at all (a picture of a chair is not a skin photo), judged from colour alike for every
/// skin tone, and when unsure, accepted: a real lesion must never be refused.
///
/// A pixel has a skin colour when, in CIELAB (D65; CIE 15:2004), it has some red (a* ≥ 3), a hue between −45° and
/// 80° (b* ≥ −a* and b* ≤ 5.67·a*), a chroma of at most 45 and is not black (L* ≥ 8). Skin colour spans lightness far
/// more than hue: colorimetric surveys by Individual Typology Angle (Chardon A et al. Int J Cosmet Sci
/// 1991;13:191–208; Del Bino S, Bernerd F. Br J Dermatol 2013;169 Suppl 3:33–40) put very light to dark skin at L*
/// from about 75 down to 25 with a* and b* positive throughout, so a rule on hue and chroma, not lightness, holds
/// across Fitzpatrick types I–VI. The red floor is what tells skin from white, grey and beige walls and from paper
/// (a* ≈ 0 even under warm light). Rules in YCbCr (Chai D, Ngan KN. IEEE TCSVT 1999;9:551–564) and in RGB (Kovač J
/// et al. EUROCON 2003) were measured on the same fixtures: the RGB rule refused dark skin, the YCbCr rule accepted
/// beige and warm-lit white walls (BENCHMARKS.md, "Skin presence").
///
/// Measured at a working size (the longer side at most ``workingSide`` by a box filter): the share of skin-coloured
/// pixels F, and the share G of the largest 4-connected region of them.
/// - F < 15 %: **noSkin**, refused;
/// - F ≥ 35 % and G ≥ 20 %: **skin**;
/// - otherwise **unsure**: accepted, and the answer says so.
///
/// Colour alone cannot tell skin from wood, brick, cardboard or tan fur: those pass (as skin or unsure). The check
/// refuses what is plainly not skin; it does not prove that what passes is.
public enum SkinPresence {
    public enum Verdict: String, Sendable, Codable {
        case skin, unsure, noSkin
    }

    public struct Measure: Sendable, Equatable {
        /// The share of skin-coloured pixels, 0–1.
        public let skinFraction: Double
        /// The share of the largest connected region of them, 0–1.
        public let largestRegionFraction: Double
        public let verdict: Verdict
    }

    public static let workingSide = 128
    /// Below this share of skin-coloured pixels, a photo is refused.
    public static let refusedBelow = 0.15
    /// At or above this share (and ``regionFrom`` in one region), a photo is skin; between, unsure.
    public static let skinFrom = 0.35
    public static let regionFrom = 0.20

    public static func measure(_ image: RasterImage) -> Measure {
        let small = image.channels == 3 ? image.shrunk(by: image.factor(toFit: workingSide)) : image
        let count = small.width * small.height
        guard small.channels == 3, count > 0 else { return Measure(skinFraction: 0, largestRegionFraction: 0, verdict: .noSkin) }
        var mask = [Bool](repeating: false, count: count)
        var skin = 0
        small.pixels.withUnsafeBufferPointer { rgb in
            for index in 0..<count where isSkinColour(red: rgb[3 * index], green: rgb[3 * index + 1], blue: rgb[3 * index + 2]) {
                mask[index] = true
                skin += 1
            }
        }
        let fraction = Double(skin) / Double(count)
        let region = Double(largestRegion(mask, width: small.width, height: small.height)) / Double(count)
        let verdict: Verdict =
            fraction < refusedBelow ? .noSkin : fraction >= skinFrom && region >= regionFrom ? .skin : .unsure
        return Measure(skinFraction: fraction, largestRegionFraction: region, verdict: verdict)
    }

    /// The rule above for one sRGB pixel.
    public static func isSkinColour(red: UInt8, green: UInt8, blue: UInt8) -> Bool {
        let (lightness, a, b) = lab(red: red, green: green, blue: blue)
        return lightness >= 8 && a >= 3 && b >= -a && b <= 5.67 * a && a * a + b * b <= 45 * 45
    }

    /// CIELAB (D65 white, 2° observer) of an sRGB pixel (IEC 61966-2-1).
    static func lab(red: UInt8, green: UInt8, blue: UInt8) -> (lightness: Double, a: Double, b: Double) {
        let (r, g, b) = (linear[Int(red)], linear[Int(green)], linear[Int(blue)])
        let x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
        let (fx, fy, fz) = (f(x / 0.95047), f(y), f(z / 1.08883))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// sRGB's decoding to linear light, one value per 8-bit level.
    private static let linear: [Double] = (0...255).map { level in
        let c = Double(level) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    private static func f(_ t: Double) -> Double {
        let epsilon = 6.0 / 29
        return t > epsilon * epsilon * epsilon ? pow(t, 1.0 / 3.0) : t / (3 * epsilon * epsilon) + 4.0 / 29
    }

    /// The size of the largest 4-connected region of `true` in the mask, by a flood fill with a stack of its own (no
    /// recursion, however large the region).
    static func largestRegion(_ mask: [Bool], width: Int, height: Int) -> Int {
        var seen = [Bool](repeating: false, count: mask.count)
        var stack: [Int] = []
        var largest = 0
        for start in 0..<mask.count where mask[start] && !seen[start] {
            var size = 0
            seen[start] = true
            stack.append(start)
            while let index = stack.popLast() {
                size += 1
                let (x, y) = (index % width, index / width)
                for (neighbour, inside) in [(index - 1, x > 0), (index + 1, x < width - 1), (index - width, y > 0), (index + width, y < height - 1)]
                where inside && mask[neighbour] && !seen[neighbour] {
                    seen[neighbour] = true
                    stack.append(neighbour)
                }
            }
            largest = max(largest, size)
        }
        return largest
    }
}
