import CaretideDomain
import CaretideSchemas
import Testing

@testable import NotificationService

/// What a batch of alerts knows without asking the database again (`AlertBatch`): care teams as looked up, today's
/// alerts as looked up plus those the batch raised itself.
@Suite struct AlertBatchTests {
    let patient = NotificationStore.Recipient(id: "p-1", role: .patient)
    let consultant = NotificationStore.Recipient(id: "dr-1", role: .consultant)
    let stage1 = AlertBatch.Subject(patientID: "p-1", kind: "bloodPressure", category: "stage1Hypertension")
    let stage2 = AlertBatch.Subject(patientID: "p-1", kind: "bloodPressure", category: "stage2Hypertension")

    @Test("a patient looked up without grants has no care team")
    func careTeams() {
        let alertBatch = AlertBatch(careTeams: ["p-1": ["dr-1"]], alertsToday: [])
        #expect(alertBatch.careTeam(of: "p-1") == ["dr-1"])
        #expect(alertBatch.careTeam(of: "p-2").isEmpty)
    }

    @Test("alerted today is per recipient and subject: another category, or another recipient, is not alerted")
    func perRecipientAndSubject() {
        let alertBatch = AlertBatch(careTeams: [:], alertsToday: [AlertBatch.Alerted(recipient: patient, subject: stage1)])
        #expect(alertBatch.alertedToday([patient, consultant], about: stage1) == [patient])
        #expect(alertBatch.alertedToday([patient, consultant], about: stage2).isEmpty)
    }

    @Test("an alert the batch raises counts for the events after it, at the severities alert fatigue counts only")
    func theBatchsOwnAlerts() {
        var alertBatch = AlertBatch(careTeams: [:], alertsToday: [])
        alertBatch.alerted([patient], about: stage1, severity: .normal)
        #expect(alertBatch.alertedToday([patient], about: stage1).isEmpty)
        alertBatch.alerted([patient, consultant], about: stage1, severity: .attention)
        #expect(alertBatch.alertedToday([patient, consultant], about: stage1) == [patient, consultant])
        alertBatch.alerted([patient], about: stage2, severity: .urgent)
        #expect(alertBatch.alertedToday([patient], about: stage2) == [patient])
    }
}
