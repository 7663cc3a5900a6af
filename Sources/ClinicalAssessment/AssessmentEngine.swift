public import CaretideDomain
public import CaretideSchemas
public import Foundation

/// Applies the clinical rules of `CaretideDomain` to the recorded events of `CaretideSchemas`. Pure: values in, values
/// out. ingest-service uses it to refuse values the rules cannot assess (so bad input is answered at once, field by
/// field), scoring-service to assess, and `caretide rescore` to recompute stored inputs with the current rules.
public enum AssessmentEngine {
    /// Assesses one recorded event by its own rule (`AssessedPayload`). `now` bounds dates (an NPI diagnosis date may
    /// not lie in the future). Throws the rule's validation error naming every failing field; returns nil for events
    /// that are not assessed.
    public static func assess(_ payload: any EventPayload, now: Date) throws(DomainValidationError) -> Assessment? {
        guard let assessed = payload as? any AssessedPayload else { return nil }
        return try assessed.assessment(now: now)
    }

    static func measurement(
        _ reading: some MeasurementPayload, _ category: AssessmentCategory, _ severity: Severity, _ tip: TipKey, _ values: [String: Double]
    ) -> Assessment {
        Assessment(
            subjectID: reading.measurementID.uuidString.lowercased(), subjectRevision: reading.revision, category: category,
            severity: severity, tip: tip, observedAt: reading.takenAt, values: values)
    }

    static func assessLipids(_ panel: LipidPanelRecorded) throws(DomainValidationError) -> Assessment {
        let result = try Lipids.assess(
            LipidPanelInput(
                totalCholesterol: panel.totalCholesterol, ldlCholesterol: panel.ldlCholesterol, hdlCholesterol: panel.hdlCholesterol,
                triglycerides: panel.triglycerides, unit: panel.unit, sex: panel.sex))
        // The panel's category is that of its most severe measure (ties: the first in panel order), so one word says
        // what deserves attention; every measure's value stays in `values`.
        let measures: [(name: String, category: LipidPanelCategory, severity: Severity, tip: TipKey, valueMgPerDL: Double)] = [
            result.totalCholesterol.map { ("totalCholesterol", LipidPanelCategory($0.category), $0.severity, $0.tip, $0.valueMgPerDL) },
            result.ldlCholesterol.map { ("ldlCholesterol", LipidPanelCategory($0.category), $0.severity, $0.tip, $0.valueMgPerDL) },
            result.hdlCholesterol.map { ("hdlCholesterol", LipidPanelCategory($0.category), $0.severity, $0.tip, $0.valueMgPerDL) },
            result.triglycerides.map { ("triglycerides", LipidPanelCategory($0.category), $0.severity, $0.tip, $0.valueMgPerDL) },
        ].compactMap { $0 }
        let headline = measures.max { $0.severity < $1.severity } ?? measures[0]
        var values: [String: Double] = [:]
        for measure in measures { values[measure.name + "MgPerDL"] = measure.valueMgPerDL }
        return Assessment(
            subjectID: panel.measurementID.uuidString.lowercased(), subjectRevision: panel.revision,
            category: .lipids(headline.category), severity: result.severity,
            tip: headline.tip, observedAt: panel.takenAt, values: values)
    }

    static func assessNPI(_ inputs: NPIInputsRecorded, now: Date) throws(DomainValidationError) -> Assessment {
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
            subjectID: inputs.npiID.uuidString.lowercased(), subjectRevision: inputs.revision,
            category: .nottinghamPrognosticIndex(result.group), severity: severity, tip: result.tip, observedAt: inputs.diagnosisDate,
            values: [
                "npi": result.npi, "lymphNodeStage": Double(result.lymphNodeStage), "fiveYearSurvivalPercent": Double(result.fiveYearSurvivalPercent),
            ])
    }

    static func assessMelanoma(_ profile: MelanomaRiskProfileRecorded) throws(DomainValidationError) -> Assessment {
        let result = try MelanomaRisk.assess(profile.factors)
        // The category is what users see first; "higher" asks for attention (a clinician skin check), never urgency.
        let severity: Severity = result.category == .higher ? .attention : .normal
        return Assessment(
            subjectID: profile.profileID.uuidString.lowercased(), subjectRevision: profile.revision,
            category: .melanomaRisk(result.category), severity: severity, tip: result.tip, observedAt: profile.answeredAt,
            values: ["score": Double(result.score), "selfExaminationIntervalMonths": Double(result.selfExaminationIntervalMonths)])
    }

    /// A classifier's answer about a skin photo. A later answer about the same photo (another model, or a new version)
    /// replaces the standing one: its revision is the answer's time, in seconds.
    static func assessLesionPhoto(_ answer: LesionPhotoClassified) throws(DomainValidationError) -> Assessment {
        let result = try LesionClassification.assess(melanomaProbability: answer.melanomaProbability)
        // Suspicious asks for the care team's attention at once; uncertain and not suspicious are the patient's to read.
        let severity: Severity = result.category == .suspicious ? .attention : .normal
        // bounded: classifiedAt was parsed from an RFC 3339 timestamp with a four-digit year.
        return Assessment(
            subjectID: answer.photoID.uuidString.lowercased(), subjectRevision: Int(answer.classifiedAt.timeIntervalSince1970),
            category: .lesionPhoto(result.category), severity: severity, tip: result.tip, observedAt: answer.classifiedAt,
            values: ["melanomaProbability": answer.melanomaProbability, "certaintyPercent": result.certaintyPercent])
    }

    static func assessExam(_ exam: ExamResultRecorded) throws(DomainValidationError) -> Assessment {
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
            subjectID: ExamKey(institutionID: exam.institutionID, examID: exam.examID).subjectID, subjectRevision: exam.revision,
            category: .examResult(worst.interpretation), severity: worst.severity, tip: worst.tip, observedAt: exam.reportedAt,
            values: ["items": Double(lines.count), "abnormalItems": Double(lines.filter { $0.interpretation != .N }.count)],
            flaggedItems: lines)
    }
}
