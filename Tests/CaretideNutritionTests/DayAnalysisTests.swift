import CaretideDomain
import CaretideNutrition
import Testing

@Suite("A day against the reference values")
struct DayAnalysisTests {
    func check(_ analysis: DayAnalysis, _ nutrient: Nutrient) throws -> DayAnalysis.Check {
        try #require(analysis.checks.first { $0.nutrient == nutrient })
    }

    /// A day well inside every limit for a woman of 30 (energy reference 2,000 kcal, protein RDA 46 g).
    let healthy = Nutrients(energyKcal: 2000, proteinG: 60, saturatedFatG: 10, sugarsG: 30, sodiumMg: 1500)

    @Test("The checks come in a fixed order with their sources")
    func order() {
        let analysis = DayAnalysis(totals: day(healthy), sex: .female, age: 30)
        #expect(analysis.checks.map(\.nutrient) == [.sodium, .sugars, .saturatedFat, .energy, .protein])
        #expect(analysis.checks.map(\.source) == ["WHO 2012", "WHO 2015", "WHO 2023", "DGA 2020–2025, Table A2-2", "IOM DRI 2005"])
        #expect(analysis.checks.map(\.status) == [.belowLimit, .belowLimit, .belowLimit, .nearReference, .meetsReference])
        #expect(analysis.severity == .normal)
        #expect(analysis.tips == [.nutritionWithinLimits])
        #expect(analysis.totals == day(healthy))
    }

    @Test(
        "Sodium: below 2,000 mg, at or above it, and twice it",
        arguments: [
            (1999.9, DayAnalysis.Status.belowLimit, Severity.normal, nil),
            (2000, .atOrAboveLimit, .normal, TipKey.nutritionSodiumAbove),
            (3999.9, .atOrAboveLimit, .normal, .nutritionSodiumAbove),
            (4000, .atOrAboveLimit, .attention, .nutritionSodiumFarAbove),
        ] as [(Double, DayAnalysis.Status, Severity, TipKey?)])
    func sodium(milligrams: Double, status: DayAnalysis.Status, severity: Severity, tip: TipKey?) throws {
        var nutrients = healthy
        nutrients.sodiumMg = milligrams
        let analysis = DayAnalysis(totals: day(nutrients), sex: .female, age: 30)
        let sodium = try check(analysis, .sodium)
        #expect(sodium.status == status)
        #expect(sodium.value == milligrams)
        #expect(sodium.reference == 2000)
        #expect(sodium.shareOfEnergy == nil)
        #expect(analysis.severity == severity)
        #expect(analysis.tips == [tip ?? .nutritionWithinLimits])
    }

    /// 1,800 kcal: 10 % is 180 kcal, 20 g of saturated fat (× 9) or 45 g of sugars (× 4).
    @Test("Saturated fat and sugars: a share just under 10 % and exactly 10 %")
    func shares() throws {
        func analysis(saturatedFat: Double = 5, sugars: Double = 10) -> DayAnalysis {
            DayAnalysis(
                totals: day(Nutrients(energyKcal: 1800, proteinG: 60, saturatedFatG: saturatedFat, sugarsG: sugars, sodiumMg: 1000)),
                sex: .female, age: 30)
        }
        let under = try check(analysis(saturatedFat: 19.99), .saturatedFat)
        #expect(under.status == .belowLimit)
        #expect(isClose(under.shareOfEnergy, 19.99 * 9 / 1800))
        let at = try check(analysis(saturatedFat: 20), .saturatedFat)
        #expect(at.status == .atOrAboveLimit)
        #expect(at.shareOfEnergy == 0.1)
        #expect(isClose(at.reference, 20))
        #expect(at.value == 20)
        #expect(analysis(saturatedFat: 20).tips == [.nutritionSaturatedFatAbove])

        let sugarsUnder = try check(analysis(sugars: 44.99), .sugars)
        #expect(sugarsUnder.status == .belowLimit)
        #expect(isClose(sugarsUnder.shareOfEnergy, 44.99 * 4 / 1800))
        // Total sugars at 10 %: free sugars, a part of them, may or may not be.
        let sugarsAt = try check(analysis(sugars: 45), .sugars)
        #expect(sugarsAt.status == .possiblyAboveLimit)
        #expect(sugarsAt.shareOfEnergy == 0.1)
        #expect(isClose(sugarsAt.reference, 45))
        #expect(analysis(sugars: 45).tips == [.nutritionSugarsPossiblyAbove])
    }

    @Test("A day without a record is not analysed: no checks, no tips, whoever the patient")
    func noRecord() {
        let analysis = DayAnalysis(totals: NutrientTotals(), sex: .female, age: 40)
        #expect(analysis.checks.isEmpty && analysis.tips.isEmpty && analysis.severity == .normal)
    }

    @Test("A day without energy has no shares")
    func noEnergy() throws {
        let analysis = DayAnalysis(totals: day(Nutrients(energyKcal: 0, saturatedFatG: 0, sugarsG: 0, sodiumMg: 0)), sex: nil, age: nil)
        for nutrient in [Nutrient.sugars, .saturatedFat] {
            let share = try check(analysis, nutrient)
            #expect(share.status == .unknown)
            #expect(share.unknownBecause == "energy is 0")
            #expect(share.reference == nil && share.shareOfEnergy == nil)
        }
        // The WHO limits are not all known to be met: no "within limits".
        #expect(analysis.tips.isEmpty)
    }

    /// A woman of 30: 2,000 kcal; 89.9 % is 1,798 kcal, 110.1 % 2,202 kcal.
    @Test(
        "Energy: below 90 %, 90 to 110 % inclusive, above 110 %",
        arguments: [
            (1798, DayAnalysis.Status.belowReference, TipKey.nutritionEnergyBelow),
            (1800, .nearReference, .nutritionWithinLimits),
            (2200, .nearReference, .nutritionWithinLimits),
            (2202, .aboveReference, .nutritionEnergyAbove),
        ] as [(Double, DayAnalysis.Status, TipKey)])
    func energy(kcal: Double, status: DayAnalysis.Status, tip: TipKey) throws {
        var nutrients = healthy
        nutrients.energyKcal = kcal
        let analysis = DayAnalysis(totals: day(nutrients), sex: .female, age: 30)
        let energy = try check(analysis, .energy)
        #expect(energy.status == status)
        #expect(energy.reference == 2000)
        #expect(energy.unknownBecause == nil)
        #expect(analysis.tips == [tip])
    }

    @Test("Energy of a man of 30 at 90 % and 110 % of 2,600 kcal")
    func energyMale() throws {
        #expect(try check(DayAnalysis(totals: day(Nutrients(energyKcal: 2340)), sex: .male, age: 30), .energy).status == .nearReference)
        #expect(try check(DayAnalysis(totals: day(Nutrients(energyKcal: 2860)), sex: .male, age: 30), .energy).status == .nearReference)
        #expect(try check(DayAnalysis(totals: day(Nutrients(energyKcal: 2339)), sex: .male, age: 30), .energy).status == .belowReference)
        #expect(try check(DayAnalysis(totals: day(Nutrients(energyKcal: 2861)), sex: .male, age: 30), .energy).status == .aboveReference)
    }

    @Test("Protein: just below the RDA and at it")
    func protein() throws {
        var nutrients = healthy
        nutrients.proteinG = 45.99
        var analysis = DayAnalysis(totals: day(nutrients), sex: .female, age: 30)
        #expect(try check(analysis, .protein).status == .belowReference)
        #expect(try check(analysis, .protein).reference == 46)
        #expect(analysis.tips == [.nutritionProteinBelow])
        nutrients.proteinG = 46
        analysis = DayAnalysis(totals: day(nutrients), sex: .female, age: 30)
        #expect(try check(analysis, .protein).status == .meetsReference)
        #expect(analysis.tips == [.nutritionWithinLimits])
        // A boy of 15: 52 g.
        analysis = DayAnalysis(totals: day(Nutrients(proteinG: 51.9)), sex: .male, age: 15)
        #expect(try check(analysis, .protein).status == .belowReference)
        #expect(try check(analysis, .protein).reference == 52)
    }

    @Test("Unknown sex or age: energy and protein unknown, the adult sodium limit")
    func unknowns() throws {
        var analysis = DayAnalysis(totals: day(healthy), sex: nil, age: nil)
        for nutrient in [Nutrient.energy, .protein] {
            #expect(try check(analysis, nutrient).status == .unknown)
            #expect(try check(analysis, nutrient).reference == nil)
            #expect(try check(analysis, nutrient).unknownBecause == "sex and age are not known")
        }
        #expect(try check(analysis, .sodium).reference == 2000)
        #expect(analysis.tips == [.nutritionWithinLimits])

        analysis = DayAnalysis(totals: day(healthy), sex: .female, age: nil)
        #expect(try check(analysis, .energy).unknownBecause == "age is not known")
        #expect(try check(analysis, .protein).unknownBecause == "age is not known")

        analysis = DayAnalysis(totals: day(healthy), sex: nil, age: 30)
        #expect(try check(analysis, .energy).unknownBecause == "sex is not known")
        #expect(try check(analysis, .protein).unknownBecause == "sex is not known")

        // Below 14 the protein RDA is the same for both sexes: known without the sex.
        analysis = DayAnalysis(totals: day(Nutrients(energyKcal: 1800, proteinG: 40, sodiumMg: 500)), sex: nil, age: 10)
        #expect(try check(analysis, .protein).status == .meetsReference)
        #expect(try check(analysis, .protein).reference == 34)
        #expect(try check(analysis, .energy).unknownBecause == "sex is not known")
        // The child's sodium limit, the lower of the two sexes': 2,000 × 1,800 / 2,600.
        #expect(try check(analysis, .sodium).reference == 2000.0 * 1800 / 2600)

        // Outside the tables' ages.
        analysis = DayAnalysis(totals: day(healthy), sex: .female, age: 1)
        #expect(try check(analysis, .energy).status == .unknown)
        #expect(try check(analysis, .protein).reference == 13)
        analysis = DayAnalysis(totals: day(healthy), sex: .male, age: 0)
        #expect(try check(analysis, .protein).status == .unknown)
    }

    @Test("Every tip that applies, most important first")
    func tips() {
        let analysis = DayAnalysis(
            totals: day(Nutrients(energyKcal: 3000, proteinG: 20, saturatedFatG: 40, sugarsG: 100, sodiumMg: 5000)), sex: .female, age: 30)
        #expect(
            analysis.tips == [
                .nutritionSodiumFarAbove, .nutritionSaturatedFatAbove, .nutritionSugarsPossiblyAbove, .nutritionEnergyAbove, .nutritionProteinBelow,
            ])
        #expect(analysis.severity == .attention)
        for tip in analysis.tips { #expect(Tips.english[tip]?.isEmpty == false) }
    }

    @Test("A child's day is held to the child's sodium limit")
    func child() throws {
        // A girl of 6: 2,000 × 1,400 / 2,000 = 1,400 mg; twice that is 2,800 mg.
        var analysis = DayAnalysis(totals: day(Nutrients(energyKcal: 1400, proteinG: 30, sodiumMg: 1399)), sex: .female, age: 6)
        #expect(try check(analysis, .sodium).reference == 1400)
        #expect(try check(analysis, .sodium).status == .belowLimit)
        analysis = DayAnalysis(totals: day(Nutrients(energyKcal: 1400, proteinG: 30, sodiumMg: 2800)), sex: .female, age: 6)
        #expect(analysis.severity == .attention)
        #expect(analysis.tips.first == .nutritionSodiumFarAbove)
    }
}
