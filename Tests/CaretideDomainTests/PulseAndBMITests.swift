import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite("Resting pulse")
struct PulseTests {
    @Test(
        "Golden table: every band edge",
        arguments: [
            (20, PulseCategory.severeBradycardia, Severity.urgent, TipKey.pulseSevereBradycardia),
            (40, .severeBradycardia, .urgent, .pulseSevereBradycardia),
            (41, .bradycardia, .attention, .pulseBradycardia),
            (59, .bradycardia, .attention, .pulseBradycardia),
            (60, .normal, .normal, .pulseNormal),
            (100, .normal, .normal, .pulseNormal),
            (101, .tachycardia, .attention, .pulseTachycardia),
            (130, .tachycardia, .attention, .pulseTachycardia),
            (131, .severeTachycardia, .urgent, .pulseSevereTachycardia),
            (300, .severeTachycardia, .urgent, .pulseSevereTachycardia),
        ])
    func golden(bpm: Int, category: PulseCategory, severity: Severity, tip: TipKey) throws {
        let result = try Pulse.assess(restingBeatsPerMinute: bpm)
        #expect(result.category == category)
        #expect(result.severity == severity)
        #expect(result.tip == tip)
        #expect(result.beatsPerMinute == bpm)
    }

    @Test("Implausible pulse", arguments: [19, 301, -5])
    func implausible(bpm: Int) throws {
        let error = try #require(validationError { try Pulse.assess(restingBeatsPerMinute: bpm) })
        #expect(error.issues == [FieldIssue(field: "/beatsPerMinute", message: "is outside the plausible range", allowedRange: "20...300 beats/min")])
    }

    @Test("Property: a faster pulse never gives a slower category")
    func monotonic() async {
        await propertyCheck(input: Gen.int(in: 20...300), Gen.int(in: 0...100)) { bpm, raise in
            guard bpm + raise <= 300 else { return }
            let faster = try Pulse.assess(restingBeatsPerMinute: bpm + raise)
            let base = try Pulse.assess(restingBeatsPerMinute: bpm)
            #expect(faster.category >= base.category, "\(bpm) → \(bpm + raise)")
        }
    }
}

@Suite("Body mass index (WHO)")
struct BodyMassIndexTests {
    // Height 200 cm → BMI = weight / 4, so every WHO edge is reachable with an exact input.
    @Test(
        "Golden table: every band edge (height 200 cm)",
        arguments: [
            (73.96, 1849, BodyMassIndexCategory.underweight, Severity.attention),
            (74.0, 1850, .normal, .normal),
            (99.96, 2499, .normal, .normal),
            (100.0, 2500, .overweight, .attention),
            (119.96, 2999, .overweight, .attention),
            (120.0, 3000, .obeseClassI, .attention),
            (139.96, 3499, .obeseClassI, .attention),
            (140.0, 3500, .obeseClassII, .attention),
            (159.96, 3999, .obeseClassII, .attention),
            (160.0, 4000, .obeseClassIII, .attention),
        ])
    func golden(weight: Double, hundredths: Int, category: BodyMassIndexCategory, severity: Severity) throws {
        let result = try BodyMassIndex.assess(weightKg: weight, heightCm: 200)
        #expect(result.bodyMassIndexHundredths == hundredths)
        #expect(result.bodyMassIndex == Double(hundredths) / 100)
        #expect(result.category == category)
        #expect(result.severity == severity)
    }

    @Test("Realistic heights, and rounding to 0.01 before classifying")
    func rounding() throws {
        let exact = try BodyMassIndex.assess(weightKg: 72.25, heightCm: 170)  // 72.25 / 1.7² = 25.00 exactly
        #expect(exact.bodyMassIndexHundredths == 2500)
        #expect(exact.category == .overweight)
        let roundsUp = try BodyMassIndex.assess(weightKg: 99.984, heightCm: 200)  // 24.996 → 25.00
        #expect(roundsUp.bodyMassIndexHundredths == 2500)
        #expect(roundsUp.category == .overweight)
        let roundsDown = try BodyMassIndex.assess(weightKg: 99.976, heightCm: 200)  // 24.994 → 24.99
        #expect(roundsDown.bodyMassIndexHundredths == 2499)
        #expect(roundsDown.category == .normal)
        let typical = try BodyMassIndex.assess(weightKg: 70, heightCm: 175)  // 22.857… → 22.86
        #expect(typical.bodyMassIndexHundredths == 2286)
        #expect(typical.tip == .bmiNormal)
    }

    @Test("Implausible inputs report every field")
    func implausible() throws {
        let both = try #require(validationError { try BodyMassIndex.assess(weightKg: 19.9, heightCm: 251) })
        #expect(both.fields == ["/weightKg", "/heightCm"])
        #expect(both.issue(for: "/weightKg")?.allowedRange == "20...500 kg")
        #expect(both.issue(for: "/heightCm")?.allowedRange == "100...250 cm")
        let nan = try #require(validationError { try BodyMassIndex.assess(weightKg: .nan, heightCm: 170) })
        #expect(nan.issues.first?.message == "must be a finite number")
        #expect(validationError { try BodyMassIndex.assess(weightKg: 20, heightCm: 100) } == nil)
        #expect(validationError { try BodyMassIndex.assess(weightKg: 500.1, heightCm: 99.9) }?.issues.count == 2)
    }

    @Test("Property: more weight at the same height never lowers the class")
    func monotonic() async {
        await propertyCheck(input: Gen.double(in: 20...500), Gen.double(in: 0...100), Gen.double(in: 100...250)) {
            weight, extra, height in
            guard weight + extra <= 500 else { return }
            let base = try BodyMassIndex.assess(weightKg: weight, heightCm: height)
            let heavier = try BodyMassIndex.assess(weightKg: weight + extra, heightCm: height)
            #expect(heavier.category >= base.category)
        }
    }
}
