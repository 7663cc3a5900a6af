public import CaretideDomain
public import CaretideSchemas
public import Foundation

/// Applies the clinical rules of `CaretideDomain` to the recorded events of `CaretideSchemas`. Pure: values in, values
/// out. ingest-service uses it to refuse values the rules cannot assess (so bad input is answered at once, field by
/// field), scoring-service to assess, and `caretide rescore` to recompute stored inputs with the current rules.
public enum AssessmentEngine {
    /// Assesses one recorded event. `now` bounds dates (an NPI diagnosis date may not lie in the future).
    /// Throws the rule's validation error naming every failing field; returns nil for events that are not assessed.
    public static func assess(_ payload: any EventPayload, now: Date) throws(DomainValidationError) -> Assessment? {
        switch payload {
        case let reading as BloodPressureRecorded:
            let result = try BloodPressure.assess(systolic: reading.systolic, diastolic: reading.diastolic)
            return measurement(
                reading, .bloodPressure, result.category.rawValue, result.severity, result.tip,
                ["systolic": Double(reading.systolic), "diastolic": Double(reading.diastolic)])
        case let reading as PulseRecorded:
            let result = try Pulse.assess(restingBeatsPerMinute: reading.beatsPerMinute)
            return measurement(
                reading, .pulse, result.category.rawValue, result.severity, result.tip, ["beatsPerMinute": Double(reading.beatsPerMinute)])
        case let reading as BodyMeasurementRecorded:
            let result = try BodyMassIndex.assess(weightKg: reading.weightKg, heightCm: reading.heightCm)
            return measurement(
                reading, .bodyMassIndex, result.category.rawValue, result.severity, result.tip,
                ["bmi": result.bodyMassIndex, "weightKg": reading.weightKg, "heightCm": reading.heightCm])
        case let reading as GlucoseRecorded:
            let result = try Glucose.assess(value: reading.value, unit: reading.unit, context: reading.context)
            return measurement(
                reading, .glucose, result.category.rawValue, result.severity, result.tip,
                ["value": reading.value, "valueMgPerDL": result.valueMgPerDL])
        case let reading as HbA1cRecorded:
            let result = try Glucose.assessHbA1c(percent: reading.percent)
            return measurement(reading, .hba1c, result.category.rawValue, result.severity, result.tip, ["percent": reading.percent])
        case let panel as LipidPanelRecorded:
            return try assessLipids(panel)
        case let inputs as NPIInputsRecorded:
            return try assessNPI(inputs, now: now)
        case let profile as MelanomaRiskProfileRecorded:
            return try assessMelanoma(profile)
        case let exam as ExamResultRecorded:
            return try assessExam(exam)
        default:
            return nil
        }
    }

    private static func measurement(
        _ reading: some MeasurementPayload, _ kind: AssessmentKind, _ category: String, _ severity: Severity, _ tip: TipKey,
        _ values: [String: Double]
    ) -> Assessment {
        Assessment(
            kind: kind, subjectID: reading.measurementID.uuidString.lowercased(), subjectRevision: reading.revision, category: category,
            severity: severity, tip: tip, observedAt: reading.takenAt, values: values)
    }

    private static func assessLipids(_ panel: LipidPanelRecorded) throws(DomainValidationError) -> Assessment {
        let result = try Lipids.assess(
            LipidPanelInput(
                totalCholesterol: panel.totalCholesterol, ldlCholesterol: panel.ldlCholesterol, hdlCholesterol: panel.hdlCholesterol,
                triglycerides: panel.triglycerides, unit: panel.unit, sex: panel.sex))
        // The panel's category is that of its most severe measure (ties: the first in panel order), so one word says
        // what deserves attention; every measure's value stays in `values`.
        let measures: [(name: String, category: String, severity: Severity, tip: TipKey, valueMgPerDL: Double)] = [
            result.totalCholesterol.map { ("totalCholesterol", $0.category.rawValue, $0.severity, $0.tip, $0.valueMgPerDL) },
            result.ldlCholesterol.map { ("ldlCholesterol", $0.category.rawValue, $0.severity, $0.tip, $0.valueMgPerDL) },
            result.hdlCholesterol.map { ("hdlCholesterol", $0.category.rawValue, $0.severity, $0.tip, $0.valueMgPerDL) },
            result.triglycerides.map { ("triglycerides", $0.category.rawValue, $0.severity, $0.tip, $0.valueMgPerDL) },
        ].compactMap { $0 }
        let headline = measures.max { $0.severity < $1.severity } ?? measures[0]
        var values: [String: Double] = [:]
        for measure in measures { values[measure.name + "MgPerDL"] = measure.valueMgPerDL }
        return Assessment(
            kind: .lipids, subjectID: panel.measurementID.uuidString.lowercased(), subjectRevision: panel.revision,
            category: headline.category, severity: result.severity,
            tip: headline.tip, observedAt: panel.takenAt, values: values)
    }

    private static func assessNPI(_ inputs: NPIInputsRecorded, now: Date) throws(DomainValidationError) -> Assessment {
        let nodes: LymphNodeInput
        switch (inputs.lymphNodeStage, inputs.positiveNodes) {
        case (let stage?, nil): nodes = .stage(stage)
        case (nil, let count?): nodes = .positiveNodeCount(count)
        case (nil, nil):
            throw DomainValidationError(issues: [
                FieldIssue(field: "/lymphNodeStage", message: "give the lymph-node stage or the number of positive nodes")
            ])
        case (.some, .some):
            throw DomainValidationError(issues: [
                FieldIssue(field: "/positiveNodes", message: "give either the lymph-node stage or the number of positive nodes, not both")
            ])
        }
        let result = try NottinghamPrognosticIndex.assess(
            NottinghamPrognosticIndexInput(
                tumourSizeCm: inputs.tumourSizeCm, histologicalGrade: inputs.histologicalGrade, lymphNodes: nodes, diagnosisDate: inputs.diagnosisDate
            ),
            now: now)
        // The prognostic group informs care; moderate and poor prognosis call for the care team's attention.
        let severity: Severity = result.group >= .moderate ? .attention : .normal
        return Assessment(
            kind: .nottinghamPrognosticIndex, subjectID: inputs.npiID.uuidString.lowercased(), subjectRevision: inputs.revision,
            category: result.group.rawValue, severity: severity, tip: result.tip, observedAt: inputs.diagnosisDate,
            values: [
                "npi": result.npi, "lymphNodeStage": Double(result.lymphNodeStage), "fiveYearSurvivalPercent": Double(result.fiveYearSurvivalPercent),
            ])
    }

    private static func assessMelanoma(_ profile: MelanomaRiskProfileRecorded) throws(DomainValidationError) -> Assessment {
        let result = try MelanomaRisk.assess(profile.factors)
        // The category is what users see first; "higher" asks for attention (a clinician skin check), never urgency.
        let severity: Severity = result.category == .higher ? .attention : .normal
        return Assessment(
            kind: .melanomaRisk, subjectID: profile.profileID.uuidString.lowercased(), subjectRevision: profile.revision,
            category: result.category.rawValue, severity: severity, tip: result.tip, observedAt: profile.answeredAt,
            values: ["score": Double(result.score), "selfExaminationIntervalMonths": Double(result.selfExaminationIntervalMonths)])
    }

    private static func assessExam(_ exam: ExamResultRecorded) throws(DomainValidationError) -> Assessment {
        let items = exam.items.map {
            ExamResultItem(
                code: $0.code, value: $0.value, unit: $0.unit,
                referenceRange: ReferenceRange(
                    low: $0.referenceLow, high: $0.referenceHigh, criticalLow: $0.criticalLow, criticalHigh: $0.criticalHigh),
                institutionComment: $0.comment)
        }
        let flagged = try ReferenceRangeFlag.flag(items: items)
        let lines = zip(exam.items, flagged).map { line, flag in
            FlaggedExamLine(
                code: line.code, name: line.name, value: line.value, unit: line.unit, interpretation: flag.interpretation, severity: flag.severity,
                comment: flag.institutionComment)
        }
        let worst = flagged.max { $0.severity < $1.severity }!
        return Assessment(
            kind: .examResult, subjectID: ExamKey(institutionID: exam.institutionID, examID: exam.examID).subjectID, subjectRevision: exam.revision,
            category: worst.interpretation.rawValue, severity: worst.severity, tip: worst.tip, observedAt: exam.reportedAt,
            values: ["items": Double(lines.count), "abnormalItems": Double(lines.filter { $0.interpretation != .N }.count)],
            flaggedItems: lines)
    }
}
