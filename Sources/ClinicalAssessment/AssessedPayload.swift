public import CaretideDomain
public import CaretideSchemas
public import Foundation

/// A recorded event that a clinical rule assesses. Each conformance below names its rule, so a new assessed event is
/// one conformance here, and a caller holding any payload asks once whether it is assessed rather than switching over
/// the event types.
public protocol AssessedPayload: EventPayload {
    /// The rule's assessment of this event, or its validation error naming every failing field. `now` bounds dates.
    func assessment(now: Date) throws(DomainValidationError) -> Assessment
}

extension BloodPressureRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment {
        let result = try BloodPressure.assess(systolic: systolic, diastolic: diastolic)
        return AssessmentEngine.measurement(
            self, .bloodPressure(result.category), result.severity, result.tip, ["systolic": Double(systolic), "diastolic": Double(diastolic)])
    }
}

extension PulseRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment {
        let result = try Pulse.assess(restingBeatsPerMinute: beatsPerMinute)
        return AssessmentEngine.measurement(self, .pulse(result.category), result.severity, result.tip, ["beatsPerMinute": Double(beatsPerMinute)])
    }
}

extension BodyMeasurementRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment {
        let result = try BodyMassIndex.assess(weightKg: weightKg, heightCm: heightCm)
        return AssessmentEngine.measurement(
            self, .bodyMassIndex(result.category), result.severity, result.tip,
            ["bmi": result.bodyMassIndex, "weightKg": weightKg, "heightCm": heightCm])
    }
}

extension GlucoseRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment {
        let result = try Glucose.assess(value: value, unit: unit, context: context)
        return AssessmentEngine.measurement(
            self, .glucose(result.category), result.severity, result.tip, ["value": value, "valueMgPerDL": result.valueMgPerDL])
    }
}

extension HbA1cRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment {
        let result = try Glucose.assessHbA1c(percent: percent)
        return AssessmentEngine.measurement(self, .hba1c(result.category), result.severity, result.tip, ["percent": percent])
    }
}

extension LipidPanelRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment { try AssessmentEngine.assessLipids(self) }
}

extension NPIInputsRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment { try AssessmentEngine.assessNPI(self, now: now) }
}

extension LesionPhotoClassified: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment { try AssessmentEngine.assessLesionPhoto(self) }
}

extension MelanomaRiskProfileRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment { try AssessmentEngine.assessMelanoma(self) }
}

extension ExamResultRecorded: AssessedPayload {
    public func assessment(now: Date) throws(DomainValidationError) -> Assessment { try AssessmentEngine.assessExam(self) }
}
