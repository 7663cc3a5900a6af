import CaretideDomain
import CaretideNutrition
import CaretideSchemas
import Foundation
import Testing

/// One sample value per event type, type-erased so tests can iterate them.
struct EventSample: Sendable, CustomTestStringConvertible {
    let eventType: EventType
    let payloadType: any EventPayload.Type
    let encode: @Sendable () throws -> [UInt8]
    /// The same envelope through a Foundation `JSONEncoder`, for comparison with Caretide's encoder.
    let encodeWithFoundation: @Sendable (JSONEncoder) throws -> Data
    let payloadEquals: @Sendable (any EventPayload) -> Bool

    init<P: EventPayload>(_ payload: P, patientID: String? = "patient-0001") {
        eventType = P.eventType
        payloadType = P.self
        let envelope = EventEnvelope(producer: "test", patientID: patientID, traceID: "trace-1", payload: payload)
        encode = { try EventCodec().encode(envelope) }
        encodeWithFoundation = { try $0.encode(envelope) }
        payloadEquals = { ($0 as? P) == payload }
    }

    var testDescription: String { eventType.rawValue }
}

enum EventSamples {
    static let takenAt = Date(timeIntervalSince1970: 1_795_000_000.25)

    static let all: [EventSample] = [
        EventSample(BloodPressureRecorded(measurementID: UUID(), systolic: 128, diastolic: 79, takenAt: takenAt, source: .device)),
        EventSample(PulseRecorded(measurementID: UUID(), revision: 2, beatsPerMinute: 64, takenAt: takenAt, source: .patient)),
        EventSample(BodyMeasurementRecorded(measurementID: UUID(), weightKg: 70.5, heightCm: 172, takenAt: takenAt, source: .patient)),
        EventSample(GlucoseRecorded(measurementID: UUID(), value: 5.4, unit: .mmolPerL, context: .fasting, takenAt: takenAt, source: .device)),
        EventSample(HbA1cRecorded(measurementID: UUID(), percent: 5.9, takenAt: takenAt, source: .institution)),
        EventSample(
            LipidPanelRecorded(
                measurementID: UUID(), unit: .mgPerDL, sex: .male, totalCholesterol: 190, ldlCholesterol: nil, hdlCholesterol: 41, triglycerides: 150,
                takenAt: takenAt, source: .institution)),
        EventSample(MeasurementDeleted(measurementID: UUID(), kind: .bodyMeasurement, deletedAt: takenAt)),
        EventSample(
            MealRecorded(
                mealID: UUID(), revision: 2, eatenAt: takenAt, timeZone: "America/New_York", localDate: "2026-11-17", meal: .dinner, foodID: "09003",
                foodName: "Apples, raw, with skin", foodRelease: "usda-sr28", grams: 182,
                portion: EatenPortion(id: "4", description: "1 medium (3\" dia)", count: 1),
                nutrients: Nutrients(energyKcal: 94.64, proteinG: 0.4732, fatG: 0.3094, sugarsG: 18.9098, sodiumMg: 1.82))),
        EventSample(MealDeleted(mealID: UUID(), deletedAt: takenAt)),
        EventSample(
            NutritionAssessed(
                date: "2026-11-17", mealCount: 3, totals: Nutrients(energyKcal: 1_850, proteinG: 62, sodiumMg: 2_400.5), saltG: 6.00125,
                incomplete: [.sugars],
                checks: {
                    var day = NutrientTotals()
                    day.add(Nutrients(energyKcal: 1_850, proteinG: 62, sodiumMg: 2_400.5))
                    return DayAnalysis(totals: day, sex: nil, age: nil).checks.map(NutritionCheck.init)
                }(), severity: .normal,
                tips: ["nutrition.sodiumAbove"], ruleSetVersion: "2026.11.2", sourceEventID: UUID())),
        EventSample(
            NPIInputsRecorded(npiID: UUID(), tumourSizeCm: 1.5, histologicalGrade: 3, lymphNodeStage: 2, positiveNodes: nil, diagnosisDate: takenAt)),
        EventSample(
            MelanomaRiskProfileRecorded(
                profileID: UUID(), answeredAt: takenAt,
                factors: MelanomaRiskInput(
                    age: 30, sex: .male, fitzpatrickSkinType: 3, eyeColour: .brownOrBlack, hairColour: .red, commonMoles: .upTo15,
                    atypicalMoleCount: 0,
                    freckling: .noneOrFew, familyHistory: .oneFirstDegreeRelative, personalHistory: PersonalSkinCancerHistory.none,
                    immunosuppression: [.hiv], sunburnHistory: false))),
        EventSample(
            MelanomaRiskProfileRecorded(
                profileID: UUID(), revision: 2, answeredAt: takenAt,
                factors: MelanomaRiskInput(
                    age: 52, sex: .other, fitzpatrickSkinType: 2, eyeColour: .greenOrHazel, hairColour: .blond, commonMoles: .from41To60,
                    atypicalMoleCount: 2, freckling: .many, familyHistory: MelanomaFamilyHistory.none, personalHistory: .otherSkinCancer,
                    immunosuppression: [], sunburnHistory: true, inflammatoryBowelDisease: .crohnsDisease, bodyMassIndex: 31.4,
                    intermittentSunExposure: true, sunbedUse: .firstBeforeAge35))),
        EventSample(MelanomaRiskProfileWithdrawn(profileID: UUID(), withdrawnAt: takenAt)),
        EventSample(NPIInputsDeleted(npiID: UUID(), deletedAt: takenAt)),
        EventSample(
            LesionPhotoRecorded(
                photoID: UUID(), bodySite: .forearm, side: .left, takenAt: takenAt, mediaType: "image/jpeg", width: 480, height: 400,
                imageURL: "/v1/patients/p-1/photos/1c3e5a7b-9d0f-4a2b-8c4d-6e8f0a1b2c3d/file?expires=1795600000&signature=00",
                linkExpiresAt: takenAt)),
        EventSample(
            LesionPhotoRecorded(
                photoID: UUID(), bodySite: .upperBack, side: nil, takenAt: takenAt, mediaType: "image/png", width: 299, height: 299,
                imageURL: "https://ingest.example.org/v1/patients/p-1/photos/x/file", linkExpiresAt: takenAt)),
        EventSample(LesionPhotoDeleted(photoID: UUID(), deletedAt: takenAt)),
        EventSample(PatientDemographicsChanged(sex: "female", birthDate: "1968-04-02", profileRevision: 3, changedAt: takenAt)),
        EventSample(PatientErasureRequested(erasureID: UUID(), requestedBy: .operator, requestedAt: takenAt)),
        EventSample(PatientErasureConfirmed(erasureID: UUID(), service: "scoring-service", erasedAt: takenAt)),
        EventSample(
            LesionPhotoClassified(
                photoID: UUID(), model: "st-mary-dermatology-cnn", modelVersion: "2.4.1", melanomaProbability: 0.82, classifiedAt: takenAt)),
        EventSample(
            ExamResultRecorded(
                examID: "LAB-7", institutionID: "st-mary", revision: 3, reportedAt: takenAt,
                items: [
                    ExamResultLine(code: "2345-7", name: "Glucose", value: 99, unit: "mg/dL", referenceLow: 70, referenceHigh: 99, comment: "fasting")
                ])),
        EventSample(
            ExamResultRecorded(
                examID: "LAB-8", institutionID: "st-mary", revision: 1, reportedAt: takenAt,
                items: [
                    ExamResultLine(code: "718-7", name: "Haemoglobin", value: 13.9, unit: "g/dL", referenceLow: 12, referenceHigh: 15.5, comment: nil)
                ], status: .preliminary)),
        EventSample(ExamResultEnteredInError(examID: "LAB-7", institutionID: "st-mary", markedAt: takenAt)),
        EventSample(
            ExamResultReleased(examID: "LAB-7", institutionID: "st-mary", revision: 2, releasedAt: takenAt, how: .afterDelay, outOfRangeCount: 1)),
        EventSample(
            AssessmentRecorded(
                assessmentID: UUID(), sourceEventID: UUID(), subjectID: "m-1", category: .bloodPressure(.elevated), severity: .normal,
                tip: "bloodPressure.elevated", ruleSetVersion: "2026.11.1", observedAt: takenAt, supersedes: UUID(),
                values: ["systolic": 128, "diastolic": 79])),
        EventSample(AssessmentWithdrawn(assessmentID: UUID(), subjectID: "m-1", kind: .glucose, reason: .measurementDeleted, sourceEventID: UUID())),
        EventSample(
            ExamResultFlagged(
                assessmentID: UUID(), sourceEventID: UUID(), examID: "LAB-7", institutionID: "st-mary", revision: 1, reportedAt: takenAt,
                severity: .urgent,
                supersedes: nil, ruleSetVersion: "2026.11.1",
                items: [
                    FlaggedExamLine(code: "2345-7", name: "Glucose", value: 450, unit: "mg/dL", interpretation: .HH, severity: .urgent, comment: nil)
                ])),
        EventSample(
            CareTrackingFlagged(
                flagID: UUID(), rule: .risingFastingGlucose, severity: .attention, tip: "trend.risingFastingGlucose", ruleSetVersion: "2026.11.1",
                firstObservedAt: takenAt, lastObservedAt: takenAt, triggeringAssessmentID: UUID())),
        EventSample(
            AlertRaised(
                alertID: UUID(), sourceEventID: UUID(), aboutID: UUID(), kind: "bloodPressure", severity: .urgent, category: "hypertensiveCrisis",
                messageKey: "alert.bloodPressure.hypertensiveCrisis", raisedAt: takenAt)),
        EventSample(
            AlertRaised(
                alertID: UUID(), sourceEventID: UUID(), aboutID: UUID(), kind: "examResultReady", severity: .normal, category: "released",
                messageKey: "alert.examResultReady.released", raisedAt: takenAt, recipientID: "patient-1", recipientRole: .patient,
                outOfRangeCount: 2)),
        EventSample(AlertWithdrawn(alertID: UUID(), sourceEventID: UUID(), reason: .superseded, withdrawnAt: takenAt)),
        EventSample(CareTeamGranted(consultantID: "dr-1", grantedAt: takenAt, expiresAt: takenAt.addingTimeInterval(86_400))),
        EventSample(CareTeamGranted(consultantID: "dr-1", grantedAt: takenAt, expiresAt: nil)),
        EventSample(CareTeamRevoked(consultantID: "dr-1", revokedAt: takenAt)),
        EventSample(AreaRegistered(areaCode: "lisbon", name: "Lisbon", latitude: 38.72, longitude: -9.14, timeZone: "Europe/Lisbon"), patientID: nil),
        EventSample(UVIndexRecorded(areaCode: "lisbon", observedAt: takenAt, uvIndex: 8.2, dailyMax: 9.1, solarNoon: takenAt), patientID: nil),
        EventSample(UVIndexRecorded(areaCode: "lisbon", observedAt: takenAt, uvIndex: 0), patientID: nil),
        EventSample(AirQualityRecorded(areaCode: "lisbon", observedAt: takenAt, aqi: 57, pm25: 14.2, o3: 48), patientID: nil),
        EventSample(EnvironmentSubscriptionChanged(areaCode: "lisbon", subscribed: true, changedAt: takenAt), patientID: "patient-42"),
        EventSample(
            AccessRecorded(
                auditID: UUID(), recordedAt: takenAt, subject: "dr-1", role: "consultant", institutionID: nil, action: .read,
                operation: "GET /v1/patients/:patientId/assessments", owner: nil, outcome: .allowed, status: 200,
                requestID: "4bf92f3577b34da6a3ce929d0e0e4736")),
        EventSample(
            AccessRecorded(
                auditID: UUID(), recordedAt: takenAt, subject: "staff-1", role: "institution", institutionID: "st-mary", action: .write,
                operation: "PUT /v1/institutions/:institutionId/exam-results/:examId", owner: "st-john", outcome: .refused, status: 403,
                requestID: "r-1"), patientID: nil),
        EventSample(
            AccessRecorded(
                auditID: UUID(), recordedAt: takenAt, subject: "outside-share:3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", role: "outsideViewer",
                institutionID: nil, action: .read, operation: "POST /v1/outside-shares/:shareId", owner: nil, outcome: .refused, status: 403,
                requestID: "5cf92f3577b34da6a3ce929d0e0e4737")),
        EventSample(
            DiagnosisRequested(
                requestID: "req-1", phenotypes: ["HP:0001250", "HP:0001263"], excluded: ["HP:0000252"], method: .similarity, scoring: .symmetric,
                maxResults: 5,
                suggestPhenotypes: true)),
        EventSample(OntologyUpdateRequested(updateID: "hpo-1", kind: .minimum, ontologyFile: "/data/hp.obo", annotationFile: nil), patientID: nil),
        EventSample(
            DiagnosisRanked(
                requestID: "req-1", release: release, method: .likelihoodRatio, scoring: .asymmetric, queryTerms: [seizure],
                excludedTerms: [microcephaly],
                warnings: [PhenotypeQueryWarning(code: "unknownTerm", termID: "HP:9999999", message: "HP:9999999: unknown term, ignored")],
                nullQuerySize: 1, diseaseCount: 3,
                results: [
                    RankedDiseaseCandidate(
                        rank: 1, diseaseID: "OMIM:607208", diseaseName: "Dravet syndrome", pooledWith: ["ORPHA:33069"], score: 4.25, penalty: 0,
                        pValue: 0.001,
                        adjustedPValue: 0.003,
                        matches: [PhenotypeTermMatch(queryTerm: seizure, diseaseTerm: seizure, commonAncestor: seizure, informationContent: 4.25)],
                        excludedTermsPresent: [],
                        likelihoodRatio: DiseaseLikelihoodRatio(
                            log10Ratio: 1.9, log10PValueFactor: 1.2, posteriorProbability: 0.42,
                            findings: [
                                FindingLikelihoodRatio(term: seizure, excluded: false, readAt: seizure, share: 0.9, log10Ratio: 1.2),
                                FindingLikelihoodRatio(term: microcephaly, excluded: true, readAt: nil, share: nil, log10Ratio: 0.7),
                            ]))
                ],
                suggestions: [
                    PhenotypeSuggestionEntry(
                        term: seizure, informationContent: 1.5, splitEntropy: 1, presentIn: ["OMIM:1"], absentIn: ["OMIM:2"])
                ])),
        EventSample(DiagnosisRefused(requestID: "req-2", reason: .fullUpdateNeeded, message: "a full update is needed")),
        EventSample(
            OntologyReleaseImported(
                updateID: nil, release: release, termCount: 10, diseaseCount: 3, annotationCount: 9, recallFirst: 0.5, recallTopTen: 1),
            patientID: nil),
    ]

    static let seizure = PhenotypeTermReference(id: "HP:0001250", name: "Seizure")
    static let microcephaly = PhenotypeTermReference(id: "HP:0000252", name: "Microcephaly")
    static let release = OntologyReleaseReference(
        releaseID: 2, kind: .full, ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-01-16")
}
