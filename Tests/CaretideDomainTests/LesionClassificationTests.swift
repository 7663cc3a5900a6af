import CaretideDomain
import Testing

@Suite("A classifier's answer about a skin photo (docs/clinical-rules.md §15)")
struct LesionClassificationTests {
    func assessed(_ p: Double) throws -> LesionPhotoResult { try LesionClassification.assess(melanomaProbability: p) }

    @Test("boundaries: 0.5 is suspicious, 0.25 not suspicious, between them uncertain; certainty |p − 0.5| × 2 × 100")
    func boundaries() throws {
        let expected: [(Double, LesionPhotoCategory, Double)] = [
            (1, .suspicious, 100), (0.82, .suspicious, 64), (0.5, .suspicious, 0), (0.4999, .uncertain, 0),
            (0.4, .uncertain, 20), (0.2501, .uncertain, 50), (0.25, .notSuspicious, 50), (0.1, .notSuspicious, 80), (0, .notSuspicious, 100),
        ]
        for (p, category, certainty) in expected {
            let result = try assessed(p)
            #expect(result.category == category && result.certaintyPercent == certainty, "p = \(p): \(result)")
            #expect(result.dermatologistAdvised == (category != .notSuspicious))
            #expect(result.ruleSetVersion == RuleSetVersion.current)
        }
        #expect(try assessed(0.9).tip == .lesionPhotoSuspicious)
        #expect(try assessed(0.3).tip == .lesionPhotoUncertain)
        #expect(try assessed(0.2).tip == .lesionPhotoNotSuspicious)
    }

    @Test("every tip warns that the result can be wrong; the suspicious and uncertain ones send the patient to a dermatologist")
    func tips() {
        for key in [TipKey.lesionPhotoSuspicious, .lesionPhotoUncertain, .lesionPhotoNotSuspicious] {
            #expect(Tips.english[key]?.contains("can be wrong") == true, "\(key)")
        }
        #expect(Tips.english[.lesionPhotoSuspicious]?.contains("dermatologist") == true)
        #expect(Tips.english[.lesionPhotoUncertain]?.contains("dermatologist") == true)
    }

    @Test("a probability outside 0–1, or not a number, is refused naming the field")
    func refusals() {
        for p in [-0.01, 1.01, .nan, .infinity] {
            #expect(validationError { try LesionClassification.assess(melanomaProbability: p) }?.fields == ["/melanomaProbability"], "\(p)")
        }
    }

    @Test("property: certainty is symmetric about 0.5 and never falls as p moves away from it")
    func certaintyProperty() throws {
        for step in 0...1000 {
            let p = Double(step) / 1000
            #expect(LesionClassification.certainty(p) == LesionClassification.certainty(1 - p))
            if p < 0.5 { #expect(LesionClassification.certainty(p) >= LesionClassification.certainty(p + 0.001)) }
        }
    }
}
