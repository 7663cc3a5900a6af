import CaretideSchemas

/// What notification-service does with each event of the topics it consumes. The switch names every topic, and every
/// event of a consumed one, so a new event there does not compile until this says what notification does with it.
enum NotificationInput {
    case assessmentRecorded(AssessmentRecorded)
    case examResultFlagged(ExamResultFlagged)
    case careTrackingFlagged(CareTrackingFlagged)
    case assessmentWithdrawn(AssessmentWithdrawn)
    case examResultReleased(ExamResultReleased)
    case examResultEnteredInError(ExamResultEnteredInError)
    case areaRegistered(AreaRegistered)
    case uvIndexRecorded(UVIndexRecorded)
    case airQualityRecorded(AirQualityRecorded)
    /// An event of a consumed topic that needs nothing here (a report recorded but not yet released).
    case nothingToDo
    /// A type notification-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch try TopicEvent(event) {
        case .scores(.assessmentRecorded(let assessment)): self = .assessmentRecorded(assessment)
        case .scores(.examResultFlagged(let exam)): self = .examResultFlagged(exam)
        case .scores(.careTrackingFlagged(let flag)): self = .careTrackingFlagged(flag)
        case .scores(.assessmentWithdrawn(let withdrawal)): self = .assessmentWithdrawn(withdrawal)
        case .examResults(.examResultReleased(let release)): self = .examResultReleased(release)
        case .examResults(.examResultEnteredInError(let retraction)): self = .examResultEnteredInError(retraction)
        case .environment(.areaRegistered(let area)): self = .areaRegistered(area)
        case .environment(.uvIndexRecorded(let reading)): self = .uvIndexRecorded(reading)
        case .environment(.airQualityRecorded(let reading)): self = .airQualityRecorded(reading)
        // The patient hears of a report when it is released, not when it is recorded; a subscription changing is
        // this service's own announcement (for scoring's reports), already applied here.
        case .examResults(.examResultRecorded), .environment(.environmentSubscriptionChanged): self = .nothingToDo
        // Care-team events are applied by the runtime's projection before the handler, erasures by the runtime.
        case .measurements, .npi, .riskProfiles, .meals, .photos, .patients, .erasureConfirmations, .photoClassifications, .nutrition, .alerts,
            .diagnosisRequests, .diagnosisResults, .careTeam, .audit:
            self = .notConsumed(event.eventType)
        }
    }
}

extension NotificationInput {
    /// Whether applying it withdraws notifications (a superseded or withdrawn assessment, a report entered in error).
    var withdraws: Bool {
        switch self {
        case .assessmentRecorded(let assessment): assessment.supersedes != nil
        case .examResultFlagged(let exam): exam.supersedes != nil
        case .assessmentWithdrawn, .examResultEnteredInError: true
        case .careTrackingFlagged, .examResultReleased, .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .nothingToDo, .notConsumed: false
        }
    }

    /// A UV index or air-quality reading: alerted by `EnvironmentAlerting`, which delivers its alerts itself.
    var isEnvironmentalReading: Bool {
        switch self {
        case .uvIndexRecorded, .airQualityRecorded: true
        case .assessmentRecorded, .examResultFlagged, .careTrackingFlagged, .assessmentWithdrawn, .examResultReleased, .examResultEnteredInError,
            .areaRegistered, .nothingToDo, .notConsumed:
            false
        }
    }
}
