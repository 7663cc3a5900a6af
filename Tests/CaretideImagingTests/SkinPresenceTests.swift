import CaretideImaging
import Foundation
import Testing

/// The skin check on the fixtures of `Fixtures/skin/` (scripts/make-skin-fixtures; their README says what each shows
/// and where it comes from): no photo of skin of any Fitzpatrick type is refused, every plain scene without skin is,
/// and the hard scenes of a skin-like colour pass, as the check's own documentation says they do.
@Suite struct SkinPresenceTests {
    static func files() throws -> [String] {
        let directory = try #require(Bundle.module.url(forResource: "skin", withExtension: nil, subdirectory: "Fixtures"))
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
    }

    static func measure(_ file: String) throws -> SkinPresence.Measure {
        let bytes = try fixture("skin/\(file)")
        return SkinPresence.measure(try Codecs.decodeRGB(bytes, format: .jpeg, scale: 1, maximumPixels: 1_000_000, maximumScans: 64))
    }

    @Test("no skin photo of Fitzpatrick types I to VI, under any of the lights, is refused; each is taken for skin")
    func everyTypePasses() throws {
        let skin = try Self.files().filter { $0.hasPrefix("skin-") }
        for type in 1...6 { #expect(skin.filter { $0.hasPrefix("skin-type\(type)-") }.count == 5, "type \(type)") }
        #expect(skin.count == 32)
        for file in skin {
            let measure = try Self.measure(file)
            #expect(measure.verdict == .skin, "\(file): \(measure)")
            // The closest to the refusal line is far from it: the arm at the edge of the frame is still half skin.
            #expect(measure.skinFraction >= 0.5, "\(file): \(measure)")
        }
    }

    @Test("chairs, walls, paper, food, sky and grass are refused as showing no skin")
    func plainScenesAreRefused() throws {
        let scenes = try Self.files().filter { $0.hasPrefix("noskin-") }
        #expect(scenes.count == 16)
        for file in scenes {
            let measure = try Self.measure(file)
            #expect(measure.verdict == .noSkin && measure.skinFraction < 0.1, "\(file): \(measure)")
        }
    }

    @Test("scenes of a skin-like colour (wood, brick, cardboard, fur, a peach wall) pass: colour alone cannot tell them")
    func hardScenesPass() throws {
        let hard = try Self.files().filter { $0.hasPrefix("hard-") }
        #expect(hard.count == 7)
        var verdicts: [String: SkinPresence.Verdict] = [:]
        for file in hard { verdicts[file] = try Self.measure(file).verdict }
        #expect(verdicts.values.allSatisfy { $0 != .noSkin }, "\(verdicts)")
        // A skin colour in a quarter of a chair, or scattered through a cup of coffee, is unsure: accepted, and said.
        #expect(verdicts["hard-chair-wooden.jpg"] == .unsure && verdicts["hard-coffee.jpg"] == .unsure, "\(verdicts)")
    }

    @Test("the measured shares, as the prototype measured them on the same pixels")
    func shares() throws {
        // (file, skin colour, largest region) on the working image (100 × 100 for a 400 × 400 photo).
        let expected: [(String, Double, Double)] = [
            ("skin-type1-arm-edge.jpg", 0.6878, 0.6878), ("skin-type6-arm-edge.jpg", 0.6998, 0.6998),
            ("skin-type6-flash.jpg", 0.9895, 0.9891), ("hard-chair-wooden.jpg", 0.2492, 0.2492),
            ("noskin-chair-painted.jpg", 0.0694, 0.0402), ("noskin-photo-rocket.jpg", 0.0740, 0.0668),
        ]
        for (file, skin, region) in expected {
            let measure = try Self.measure(file)
            #expect(abs(measure.skinFraction - skin) < 0.005 && abs(measure.largestRegionFraction - region) < 0.005, "\(file): \(measure)")
        }
    }

    @Test("the colour rule at its edges: red needed, hue and chroma bounded, black refused")
    func colourRule() {
        // Skin of type I and of type VI (the fixtures' colours under D65), and a mole.
        #expect(SkinPresence.isSkinColour(red: 202, green: 177, blue: 164))
        #expect(SkinPresence.isSkinColour(red: 84, green: 58, blue: 47))
        #expect(SkinPresence.isSkinColour(red: 118, green: 72, blue: 52))
        // White, grey and a beige wall have no red; green grass and blue sky are the wrong hue; black is too dark; a
        // saturated red is beyond skin's chroma.
        for (red, green, blue) in [(255, 255, 255), (128, 128, 128), (225, 215, 190), (80, 140, 60), (110, 160, 230), (5, 3, 2), (230, 20, 30)] {
            #expect(!SkinPresence.isSkinColour(red: UInt8(red), green: UInt8(green), blue: UInt8(blue)), "\(red), \(green), \(blue)")
        }
    }

    @Test("the inspection refuses a photo of a chair with noSkin, and keeps an unsure one with its verdict")
    func inspection() throws {
        let chair = try fixture("skin/noskin-chair-painted.jpg")
        do {
            _ = try PhotoInspection().inspect(chair)
            Issue.record("a photo of a chair was accepted")
        } catch {
            #expect(error.code == "noSkin" && error.message.contains("shows no skin (7 %"), "\(error.message)")
        }
        #expect(try PhotoInspection().inspect(try fixture("skin/hard-chair-wooden.jpg")).skin.verdict == .unsure)
        #expect(try PhotoInspection().inspect(try fixture("skin/skin-type6-tungsten.jpg")).skin.verdict == .skin)
    }
}
