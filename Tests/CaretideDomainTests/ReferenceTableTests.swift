import Testing

@testable import CaretideDomain

/// Every reference table agrees with its rule at every edge: the rule puts a band's first value in the band and the
/// value just below it in the band before, so an app showing the table shows what the rules do.
@Suite struct ReferenceTableTests {
    /// Each table's measures classified by the rule itself, with the smallest step its values take.
    static let rules: [String: [String: (step: Double, classify: @Sendable (Double) -> String)]] = [
        "blood-pressure": [
            "systolic": (1, { (try? BloodPressure.assess(systolic: Int($0), diastolic: 60).category.rawValue) ?? "invalid" }),
            // A systolic below 130 and above the diastolic, so the diastolic value decides.
            "diastolic": (1, { (try? BloodPressure.assess(systolic: max(110, Int($0) + 1), diastolic: Int($0)).category.rawValue) ?? "invalid" }),
        ],
        "pulse": ["beatsPerMinute": (1, { (try? Pulse.assess(restingBeatsPerMinute: Int($0)).category.rawValue) ?? "invalid" })],
        "body-mass-index": ["bmi": (0.01, { BodyMassIndex.category(hundredths: Int(($0 * 100).rounded())).rawValue })],
        "glucose": [
            "fasting": (0.1, { Glucose.category(value: $0, unit: .mgPerDL, context: .fasting).rawValue }),
            "twoHourOGTT or random": (0.1, { Glucose.category(value: $0, unit: .mgPerDL, context: .random).rawValue }),
        ],
        "hba1c": ["percent": (0.01, { (try? Glucose.assessHbA1c(percent: $0).category.rawValue) ?? "invalid" })],
        "lipids": [
            "totalCholesterol": (0.1, { Lipids.totalCholesterol($0, unit: .mgPerDL).category.rawValue }),
            "ldlCholesterol": (0.1, { Lipids.ldl($0, unit: .mgPerDL).category.rawValue }),
            "hdlCholesterol (women)": (0.1, { Lipids.hdl($0, unit: .mgPerDL, sex: .female).category.rawValue }),
            "hdlCholesterol (men)": (0.1, { Lipids.hdl($0, unit: .mgPerDL, sex: .male).category.rawValue }),
            "triglycerides": (0.1, { Lipids.triglycerides($0, unit: .mgPerDL).category.rawValue }),
        ],
        "npi": [
            "npi": (0.01, { NottinghamPrognosticIndex.group(npiHundredths: Int(($0 * 100).rounded())).rawValue }),
            "lymphNodeStage": (1, { String(NottinghamPrognosticIndex.stage(positiveNodes: Int($0))) }),
        ],
        "uv-index": ["uvIndex": (0.1, { UVIndexCategory(uvIndex: $0).rawValue })],
        "air-quality": ["aqi": (1, { AirQualityCategory(aqi: Int($0)).rawValue })],
    ]

    @Test("every table and measure has its rule here", arguments: ReferenceTable.all)
    func covered(table: ReferenceTable) {
        #expect(Set(table.measures.map(\.name)) == Set(Self.rules[table.name]?.keys.map { $0 } ?? []))
        #expect(ReferenceTable.named(table.name) == table)
    }

    @Test("each band's first value is in it, the value just below is in the band before", arguments: ReferenceTable.all)
    func edges(table: ReferenceTable) {
        for measure in table.measures {
            guard let rule = Self.rules[table.name]?[measure.name] else { continue }
            #expect(measure.bands.first?.from == nil && measure.bands.last?.below == nil, "\(table.name) \(measure.name) is open at both ends")
            for (previous, band) in zip(measure.bands, measure.bands.dropFirst()) {
                let edge = band.from!
                #expect(previous.below == edge, "\(table.name) \(measure.name): bands meet")
                #expect(rule.classify(edge) == band.category, "\(table.name) \(measure.name) at \(edge)")
                #expect(rule.classify(edge - rule.step) == previous.category, "\(table.name) \(measure.name) below \(edge)")
            }
        }
    }

    @Test("colours where the guidelines give them; the rule-set version on every table")
    func colours() {
        #expect(ReferenceTable.uvIndex.measures[0].bands.map(\.colour) == ["green", "yellow", "orange", "red", "purple"])
        #expect(ReferenceTable.airQuality.measures[0].bands.first?.colour == "#00E400")
        #expect(ReferenceTable.all.allSatisfy { $0.ruleSetVersion == RuleSetVersion.current && !$0.source.isEmpty })
    }
}
