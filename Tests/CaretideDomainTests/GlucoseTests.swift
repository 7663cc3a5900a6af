import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite("Glucose and HbA1c (ADA 2025)")
struct GlucoseTests {
    @Test(
        "Golden table: fasting, mg/dL",
        arguments: [
            (53.9, GlucoseCategory.hypoglycaemiaLevel2, Severity.urgent),
            (54.0, .hypoglycaemiaLevel1, .attention),
            (69.9, .hypoglycaemiaLevel1, .attention),
            (70.0, .normal, .normal),
            (99.9, .normal, .normal),
            (100.0, .prediabetes, .attention),
            (125.9, .prediabetes, .attention),
            (126.0, .diabetesRange, .attention),
        ])
    func fastingMg(value: Double, category: GlucoseCategory, severity: Severity) throws {
        let result = try Glucose.assess(value: value, unit: .mgPerDL, context: .fasting)
        #expect(result.category == category)
        #expect(result.severity == severity)
        #expect(result.valueMgPerDL == value)
    }

    @Test(
        "Golden table: fasting, mmol/L (ADA's own SI thresholds)",
        arguments: [
            (2.9, GlucoseCategory.hypoglycaemiaLevel2),
            (3.0, .hypoglycaemiaLevel1),
            (3.8, .hypoglycaemiaLevel1),
            (3.9, .normal),
            (5.5, .normal),
            (5.6, .prediabetes),
            (6.9, .prediabetes),
            (6.95, .prediabetes),
            (7.0, .diabetesRange),
        ])
    func fastingMmol(value: Double, category: GlucoseCategory) throws {
        #expect(try Glucose.assess(value: value, unit: .mmolPerL, context: .fasting).category == category)
    }

    @Test(
        "Golden table: 2-h OGTT and random, both units",
        arguments: [GlucoseMeasurementContext.twoHourOGTT, .random])
    func postLoad(context: GlucoseMeasurementContext) throws {
        let mg: [(Double, GlucoseCategory)] = [
            (53.0, .hypoglycaemiaLevel2), (69.0, .hypoglycaemiaLevel1), (139.9, .normal), (140, .prediabetes),
            (199.9, .prediabetes), (200, .diabetesRange),
        ]
        for (value, expected) in mg {
            #expect(try Glucose.assess(value: value, unit: .mgPerDL, context: context).category == expected, "\(value) mg/dL")
        }
        let mmol: [(Double, GlucoseCategory)] = [
            (2.9, .hypoglycaemiaLevel2), (3.8, .hypoglycaemiaLevel1), (7.7, .normal), (7.8, .prediabetes),
            (11.0, .prediabetes), (11.05, .prediabetes), (11.1, .diabetesRange),
        ]
        for (value, expected) in mmol {
            #expect(try Glucose.assess(value: value, unit: .mmolPerL, context: context).category == expected, "\(value) mmol/L")
        }
    }

    @Test("Tips per category")
    func tips() throws {
        #expect(try Glucose.assess(value: 50, unit: .mgPerDL, context: .random).tip == .glucoseHypoglycaemiaLevel2)
        #expect(try Glucose.assess(value: 65, unit: .mgPerDL, context: .random).tip == .glucoseHypoglycaemiaLevel1)
        #expect(try Glucose.assess(value: 90, unit: .mgPerDL, context: .fasting).tip == .glucoseNormal)
        #expect(try Glucose.assess(value: 110, unit: .mgPerDL, context: .fasting).tip == .glucosePrediabetes)
        #expect(try Glucose.assess(value: 130, unit: .mgPerDL, context: .fasting).tip == .glucoseDiabetesRange)
    }

    @Test("Conversion factor 18.016 (glucose 180.16 g/mol)")
    func conversion() throws {
        #expect(Glucose.mgPerDLPerMmolPerL == 18.016)
        #expect(abs(Glucose.mgPerDL(fromMmolPerL: 1) - 18.016) < 1e-12)
        #expect(abs(Glucose.mgPerDL(fromMmolPerL: 7.0) - 126.112) < 1e-9)
        #expect(abs(Glucose.mmolPerL(fromMgPerDL: 126) - 6.993783) < 1e-6)
        #expect(abs(Glucose.mmolPerL(fromMgPerDL: Glucose.mgPerDL(fromMmolPerL: 5.43)) - 5.43) < 1e-12)
        let assessed = try Glucose.assess(value: 5.0, unit: .mmolPerL, context: .fasting)
        #expect(abs(assessed.valueMgPerDL - 90.08) < 1e-9)
        #expect(assessed.unit == .mmolPerL && assessed.value == 5.0)
        // The published SI edges are not exact conversions: 11.1 mmol/L is 199.98 mg/dL, yet diabetes range.
        #expect(Glucose.mgPerDL(fromMmolPerL: 11.1) < 200)
        #expect(try Glucose.assess(value: 11.1, unit: .mmolPerL, context: .twoHourOGTT).category == .diabetesRange)
    }

    @Test(
        "Golden table: HbA1c",
        arguments: [
            (5.6, GlucoseCategory.normal), (5.69, .normal), (5.7, .prediabetes), (6.4, .prediabetes),
            (6.45, .prediabetes), (6.5, .diabetesRange), (9.0, .diabetesRange),
        ])
    func hbA1c(percent: Double, category: GlucoseCategory) throws {
        let result = try Glucose.assessHbA1c(percent: percent)
        #expect(result.category == category)
        #expect(result.severity == (category == .normal ? .normal : .attention))
    }

    @Test("Implausible values name the field and the unit-specific range")
    func implausible() throws {
        #expect(
            validationError { try Glucose.assess(value: 9.9, unit: .mgPerDL, context: .fasting) }?.issues
                == [FieldIssue(field: "/value", message: "is outside the plausible range", allowedRange: "10...1500 mg/dL")])
        #expect(
            validationError { try Glucose.assess(value: 83.1, unit: .mmolPerL, context: .fasting) }?.issues.first?.allowedRange
                == "0.6...83.0 mmol/L")
        #expect(validationError { try Glucose.assess(value: .infinity, unit: .mmolPerL, context: .random) } != nil)
        #expect(validationError { try Glucose.assess(value: 126, unit: .mmolPerL, context: .fasting) } != nil)  // mg/dL value sent as mmol/L
        #expect(validationError { try Glucose.assessHbA1c(percent: 2.9) }?.issues.first?.allowedRange == "3.0...20.0 %")
        #expect(validationError { try Glucose.assessHbA1c(percent: 20.1) }?.fields == ["/percent"])
    }

    @Test("Property: a higher glucose never lowers the category (both units, every context)")
    func monotonic() async {
        await propertyCheck(
            count: 400,
            input: Gen<GlucoseMeasurementContext>.case, Gen<GlucoseUnit>.case, Gen.double(in: 0...1), Gen.double(in: 0...1)
        ) { context, unit, a, b in
            let range = unit == .mgPerDL ? Glucose.plausibleMgPerDL : Glucose.plausibleMmolPerL
            let span = range.upperBound - range.lowerBound
            let low = range.lowerBound + min(a, b) * span
            let high = range.lowerBound + max(a, b) * span
            let lowResult = try Glucose.assess(value: low, unit: unit, context: context)
            let highResult = try Glucose.assess(value: high, unit: unit, context: context)
            #expect(highResult.category >= lowResult.category, "\(low) → \(high) \(unit) \(context)")
        }
        await propertyCheck(input: Gen.double(in: 3...20), Gen.double(in: 0...5)) { percent, raise in
            guard percent + raise <= 20 else { return }
            let higher = try Glucose.assessHbA1c(percent: percent + raise)
            let base = try Glucose.assessHbA1c(percent: percent)
            #expect(higher.category >= base.category)
        }
    }
}
