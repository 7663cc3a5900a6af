import CaretideDomain
import Foundation
import Testing

@testable import IngestService

/// The rules of linking an institution's patient (`InstitutionLinking`): redemption, the limit on a patient's failed
/// attempts, where a report goes, and the bounds on what waits.
@Suite struct InstitutionLinkingTests {
    typealias Rules = InstitutionLinking
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let birthDate = LocalDate("1970-01-01")!

    func registered(expiresIn seconds: TimeInterval = 3600, failures: Int = 0, redeemed: Bool = false, linkedTo patient: String? = nil)
        -> Rules.Registered
    {
        Rules.Registered(
            birthDate: birthDate, codeExpiresAt: now.addingTimeInterval(seconds), codeFailures: failures, codeRedeemed: redeemed,
            linkedPatientID: patient)
    }

    @Test("the right date of birth links; a wrong one is counted; no registration, an expired or a locked code is refused alike")
    func redemption() {
        #expect(Rules.redeem(registered(), patientID: "p-1", birthDate: birthDate, now: now) == .link)
        #expect(Rules.redeem(registered(), patientID: "p-1", birthDate: LocalDate("1970-01-02")!, now: now) == .wrongBirthDate)
        #expect(Rules.redeem(nil, patientID: "p-1", birthDate: birthDate, now: now) == .refused)
        // The code stops working at its expiry, to the second.
        #expect(Rules.redeem(registered(expiresIn: 0), patientID: "p-1", birthDate: birthDate, now: now) == .refused)
        #expect(Rules.redeem(registered(expiresIn: 1), patientID: "p-1", birthDate: birthDate, now: now) == .link)
        // Five wrong dates of birth spend it, even for the right one after them.
        #expect(Rules.redeem(registered(failures: 4), patientID: "p-1", birthDate: birthDate, now: now) == .link)
        #expect(Rules.redeem(registered(failures: 5), patientID: "p-1", birthDate: birthDate, now: now) == .refused)
    }

    @Test("a spent code answers its own patient that the link stands, and refuses anyone else")
    func spentCode() {
        let spent = registered(redeemed: true, linkedTo: "p-1")
        #expect(Rules.redeem(spent, patientID: "p-1", birthDate: birthDate, now: now) == .alreadyLinked)
        #expect(Rules.redeem(spent, patientID: "p-2", birthDate: birthDate, now: now) == .refused)
        // Spent and later unlinked: the patient must be given a new code.
        #expect(Rules.redeem(registered(redeemed: true), patientID: "p-1", birthDate: birthDate, now: now) == .refused)
    }

    @Test("five failures within 15 minutes make a patient wait until the oldest of them is 15 minutes old")
    func failureLimit() {
        let minutes = { (m: Double) in self.now.addingTimeInterval(-m * 60) }
        #expect(Rules.retryAfter(failures: [14, 10, 5, 1].map(minutes), now: now) == nil)
        #expect(Rules.retryAfter(failures: [14, 10, 5, 2, 1].map(minutes), now: now) == minutes(14).addingTimeInterval(900))
        // Six failures: the wait ends when the second oldest leaves the window, leaving four.
        #expect(Rules.retryAfter(failures: [14, 12, 10, 5, 2, 1].map(minutes), now: now) == minutes(12).addingTimeInterval(900))
        // Failures older than the window do not count.
        #expect(Rules.retryAfter(failures: [16, 15, 10, 5, 1].map(minutes), now: now) == nil)
    }

    @Test("a report goes to the linked patient, waits for a registration not yet linked, and keeps a never-registered id")
    func destination() {
        #expect(Rules.destination(registered: true, linkedPatientID: "p-1", institutionPatientID: "mrn-1") == .patient("p-1", linked: true))
        #expect(Rules.destination(registered: true, linkedPatientID: nil, institutionPatientID: "mrn-1") == .waiting)
        #expect(Rules.destination(registered: false, linkedPatientID: nil, institutionPatientID: "p-9") == .patient("p-9", linked: false))
    }

    @Test("what waits is bounded per registration and per institution")
    func waitingBounds() {
        #expect(Rules.waitingRefusal(forPatient: 199, forInstitution: 9_999) == nil)
        #expect(Rules.waitingRefusal(forPatient: 200, forInstitution: 200)?.contains("this patient") == true)
        #expect(Rules.waitingRefusal(forPatient: 0, forInstitution: 10_000)?.contains("this institution") == true)
    }

    @Test("a code lasts 30 days unless the institution says 1 to 90")
    func codeExpiry() {
        #expect(Rules.codeExpiry(now: now, days: nil) == now.addingTimeInterval(30 * 86_400))
        #expect(Rules.codeExpiry(now: now, days: 1) == now.addingTimeInterval(86_400))
        #expect(Rules.codeExpiry(now: now, days: 90) == now.addingTimeInterval(90 * 86_400))
        #expect(Rules.codeExpiry(now: now, days: 0) == nil && Rules.codeExpiry(now: now, days: 91) == nil)
    }
}
