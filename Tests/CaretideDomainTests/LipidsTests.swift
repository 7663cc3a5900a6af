import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite("Lipids (NCEP ATP III)")
struct LipidsTests {
    @Test(
        "Golden table: total cholesterol, both units",
        arguments: [
            (199.9, LipidUnit.mgPerDL, TotalCholesterolCategory.desirable),
            (200.0, .mgPerDL, .borderlineHigh),
            (239.9, .mgPerDL, .borderlineHigh),
            (240.0, .mgPerDL, .high),
            (5.17, .mmolPerL, .desirable),  // 199.92 mg/dL
            (5.18, .mmolPerL, .borderlineHigh),  // 200.31
            (6.20, .mmolPerL, .borderlineHigh),  // 239.75 — primary mg/dL definition wins over the rounded "≥ 6.2"
            (6.21, .mmolPerL, .high),  // 240.14
        ])
    func total(value: Double, unit: LipidUnit, category: TotalCholesterolCategory) throws {
        let result = try Lipids.assessTotalCholesterol(value, unit: unit)
        #expect(result.category == category)
        #expect(result.severity == (category == .desirable ? .normal : .attention))
    }

    @Test(
        "Golden table: LDL cholesterol, both units",
        arguments: [
            (99.9, LipidUnit.mgPerDL, LDLCholesterolCategory.optimal),
            (100.0, .mgPerDL, .nearOptimal),
            (129.9, .mgPerDL, .nearOptimal),
            (130.0, .mgPerDL, .borderlineHigh),
            (159.9, .mgPerDL, .borderlineHigh),
            (160.0, .mgPerDL, .high),
            (189.9, .mgPerDL, .high),
            (190.0, .mgPerDL, .veryHigh),
            (2.58, .mmolPerL, .optimal),  // 99.77
            (2.59, .mmolPerL, .nearOptimal),  // 100.16
            (4.13, .mmolPerL, .borderlineHigh),  // 159.71
            (4.14, .mmolPerL, .high),  // 160.09
            (4.91, .mmolPerL, .high),  // 189.87
            (4.92, .mmolPerL, .veryHigh),  // 190.26
        ])
    func ldl(value: Double, unit: LipidUnit, category: LDLCholesterolCategory) throws {
        let result = try Lipids.assessLDLCholesterol(value, unit: unit)
        #expect(result.category == category)
        #expect(result.severity == ([.optimal, .nearOptimal].contains(category) ? .normal : .attention))
    }

    @Test(
        "Golden table: HDL cholesterol, sex-specific low limit, both units",
        arguments: [
            (39.9, LipidUnit.mgPerDL, Sex.male, HDLCholesterolCategory.low),
            (40.0, .mgPerDL, .male, .normal),
            (49.9, .mgPerDL, .female, .low),
            (50.0, .mgPerDL, .female, .normal),
            (45.0, .mgPerDL, .male, .normal),
            (45.0, .mgPerDL, .female, .low),
            (59.9, .mgPerDL, .female, .normal),
            (60.0, .mgPerDL, .male, .high),
            (60.0, .mgPerDL, .female, .high),
            (1.00, .mmolPerL, .male, .low),  // 38.67 mg/dL — low by the mg/dL definition
            (1.04, .mmolPerL, .male, .normal),  // 40.22
            (1.29, .mmolPerL, .female, .low),  // 49.88
            (1.30, .mmolPerL, .female, .normal),  // 50.27
            (1.55, .mmolPerL, .female, .normal),  // 59.94
            (1.56, .mmolPerL, .female, .high),  // 60.33
        ])
    func hdl(value: Double, unit: LipidUnit, sex: Sex, category: HDLCholesterolCategory) throws {
        let result = try Lipids.assessHDLCholesterol(value, unit: unit, sex: sex)
        #expect(result.category == category)
        #expect(result.severity == (category == .low ? .attention : .normal))
    }

    @Test(
        "Golden table: triglycerides, both units",
        arguments: [
            (149.9, LipidUnit.mgPerDL, TriglycerideCategory.normal),
            (150.0, .mgPerDL, .borderlineHigh),
            (199.9, .mgPerDL, .borderlineHigh),
            (200.0, .mgPerDL, .high),
            (499.9, .mgPerDL, .high),
            (500.0, .mgPerDL, .veryHigh),
            (1.69, .mmolPerL, .normal),  // 149.68
            (1.70, .mmolPerL, .borderlineHigh),  // 150.57
            (2.25, .mmolPerL, .borderlineHigh),  // 199.28
            (2.26, .mmolPerL, .high),  // 200.17
            (5.64, .mmolPerL, .high),  // 499.53
            (5.65, .mmolPerL, .veryHigh),  // 500.42
        ])
    func triglycerides(value: Double, unit: LipidUnit, category: TriglycerideCategory) throws {
        #expect(try Lipids.assessTriglycerides(value, unit: unit).category == category)
    }

    @Test("Conversion factors 38.67 and 88.57")
    func conversion() throws {
        #expect(abs(Lipids.cholesterolMgPerDL(fromMmolPerL: 5.0) - 193.35) < 1e-9)
        #expect(abs(Lipids.cholesterolMmolPerL(fromMgPerDL: 200) - 5.17197) < 1e-5)
        #expect(abs(Lipids.triglyceridesMgPerDL(fromMmolPerL: 1.0) - 88.57) < 1e-12)
        #expect(abs(Lipids.triglyceridesMmolPerL(fromMgPerDL: 150) - 1.69358) < 1e-5)
        let result = try Lipids.assessLDLCholesterol(3.0, unit: .mmolPerL)
        #expect(abs(result.valueMgPerDL - 116.01) < 1e-9)
        #expect(result.value == 3.0 && result.unit == .mmolPerL)
    }

    @Test("Panel assesses what is present and reports the worst severity")
    func panel() throws {
        let result = try Lipids.assess(
            LipidPanelInput(totalCholesterol: 180, ldlCholesterol: 95, hdlCholesterol: 38, triglycerides: 120, unit: .mgPerDL, sex: .male))
        #expect(result.totalCholesterol?.category == .desirable)
        #expect(result.ldlCholesterol?.category == .optimal)
        #expect(result.hdlCholesterol?.category == .low)
        #expect(result.hdlCholesterol?.tip == .hdlLow)
        #expect(result.triglycerides?.category == .normal)
        #expect(result.severity == .attention)
        let partial = try Lipids.assess(LipidPanelInput(ldlCholesterol: 2.0, unit: .mmolPerL))
        #expect(partial.totalCholesterol == nil && partial.hdlCholesterol == nil)
        #expect(partial.severity == .normal)
    }

    @Test("Panel validation collects every problem")
    func panelValidation() throws {
        let empty = try #require(validationError { try Lipids.assess(LipidPanelInput(unit: .mgPerDL)) })
        #expect(empty.fields == [""])
        let many = try #require(
            validationError {
                try Lipids.assess(
                    LipidPanelInput(totalCholesterol: 20, ldlCholesterol: 5000, hdlCholesterol: 50, triglycerides: .nan, unit: .mgPerDL))
            })
        #expect(many.fields == ["/totalCholesterol", "/ldlCholesterol", "/sex", "/triglycerides"])
        #expect(many.issue(for: "/totalCholesterol")?.allowedRange == "50...1000 mg/dL")
        let mmol = try #require(validationError { try Lipids.assessHDLCholesterol(10, unit: .mmolPerL, sex: .female) })
        #expect(mmol.issues.first?.allowedRange == "0.13...5.17 mmol/L")
    }

    @Test("Property: a higher value never lowers any lipid category")
    func monotonic() async {
        await propertyCheck(
            count: 300, input: Gen<LipidUnit>.case, Gen<Sex>.case, Gen.double(in: 0.000_001...0.999_999), Gen.double(in: 0.000_001...0.999_999)
        ) {
            unit, sex, a, b in
            func value(_ fraction: Double, _ mgRange: ClosedRange<Double>, factor: Double) -> Double {
                let mg = mgRange.lowerBound + fraction * (mgRange.upperBound - mgRange.lowerBound)
                return unit == .mgPerDL ? mg : mg / factor
            }
            let (lo, hi) = (min(a, b), max(a, b))
            let c = Lipids.cholesterolMgPerDLPerMmolPerL
            let t = Lipids.triglyceridesMgPerDLPerMmolPerL
            let totalLow = try Lipids.assessTotalCholesterol(value(lo, Lipids.plausibleTotalCholesterolMgPerDL, factor: c), unit: unit)
            let totalHigh = try Lipids.assessTotalCholesterol(value(hi, Lipids.plausibleTotalCholesterolMgPerDL, factor: c), unit: unit)
            #expect(totalHigh.category >= totalLow.category)
            let ldlLow = try Lipids.assessLDLCholesterol(value(lo, Lipids.plausibleLDLMgPerDL, factor: c), unit: unit)
            let ldlHigh = try Lipids.assessLDLCholesterol(value(hi, Lipids.plausibleLDLMgPerDL, factor: c), unit: unit)
            #expect(ldlHigh.category >= ldlLow.category)
            let hdlLow = try Lipids.assessHDLCholesterol(value(lo, Lipids.plausibleHDLMgPerDL, factor: c), unit: unit, sex: sex)
            let hdlHigh = try Lipids.assessHDLCholesterol(value(hi, Lipids.plausibleHDLMgPerDL, factor: c), unit: unit, sex: sex)
            #expect(hdlHigh.category >= hdlLow.category)
            let tgLow = try Lipids.assessTriglycerides(value(lo, Lipids.plausibleTriglyceridesMgPerDL, factor: t), unit: unit)
            let tgHigh = try Lipids.assessTriglycerides(value(hi, Lipids.plausibleTriglyceridesMgPerDL, factor: t), unit: unit)
            #expect(tgHigh.category >= tgLow.category)
        }
    }
}
