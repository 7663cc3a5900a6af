import CaretideDomain
import Foundation

/// The rules of linking an institution's patient to a Caretide patient, as MyChart's activation codes work: the
/// institution registers the patient under its own id and hands them a code; the patient redeems it confirming their
/// date of birth. Pure, so every case is tested without a database.
enum InstitutionLinking {
    /// How long a code can be redeemed when the institution does not say.
    static let defaultCodeDays = 30
    /// Wrong dates of birth a code takes before it is spent: the institution must issue a new one.
    static let birthDateTriesPerCode = 5
    /// Failed redemptions a patient may make in `failureWindow`; beyond them every attempt waits (429).
    static let failuresPerPatient = 5
    static let failureWindow: TimeInterval = 15 * 60
    /// Reports that may wait for one registration's link, and for all of an institution's: beyond them a report is
    /// refused, so an institution that never hands out its codes cannot fill the database.
    static let waitingPerPatient = 200
    static let waitingPerInstitution = 10_000

    /// What a redemption reads of the registration its code names.
    struct Registered: Equatable, Sendable {
        /// Nil for a stored date this build cannot read: it matches nothing.
        let birthDate: LocalDate?
        let codeExpiresAt: Date
        let codeFailures: Int
        let codeRedeemed: Bool
        let linkedPatientID: String?
    }

    enum Redemption: Equatable {
        /// Link the registration to the patient and spend the code.
        case link
        /// The patient redeemed this code already: the link stands, nothing changes.
        case alreadyLinked
        /// The code names a registration, but the date of birth is not its own: counted against the code.
        case wrongBirthDate
        /// No code of that digest, or one expired, spent, or locked by wrong dates of birth.
        case refused
    }

    /// The decision for a patient who typed a code (the registration it names, if any) and a date of birth.
    static func redeem(_ registered: Registered?, patientID: String, birthDate: LocalDate, now: Date) -> Redemption {
        guard let registered else { return .refused }
        if registered.codeRedeemed { return registered.linkedPatientID == patientID ? .alreadyLinked : .refused }
        guard now < registered.codeExpiresAt, registered.codeFailures < birthDateTriesPerCode else { return .refused }
        return registered.birthDate == birthDate ? .link : .wrongBirthDate
    }

    /// When a patient with these failed redemptions (oldest first, within the window) may try again; nil if now.
    static func retryAfter(failures: [Date], now: Date) -> Date? {
        let recent = failures.filter { now.timeIntervalSince($0) < failureWindow }
        guard recent.count >= failuresPerPatient else { return nil }
        // The attempt that, once old enough, leaves one fewer than the limit in the window.
        return recent[recent.count - failuresPerPatient].addingTimeInterval(failureWindow)
    }

    /// Where an institution's report for one of its patient ids goes.
    enum Destination: Equatable, Sendable {
        /// Stored for this Caretide patient: the linked one, or the id itself when the institution never registered it
        /// (an institution that sends Caretide ids, as before registrations existed).
        case patient(String, linked: Bool)
        /// Registered and not linked: the report waits.
        case waiting
    }

    static func destination(registered: Bool, linkedPatientID: String?, institutionPatientID: String) -> Destination {
        guard registered else { return .patient(institutionPatientID, linked: false) }
        return linkedPatientID.map { .patient($0, linked: true) } ?? .waiting
    }

    /// Why one more report may not wait, given how many wait for the registration and for the institution; nil if it may.
    static func waitingRefusal(forPatient: Int, forInstitution: Int) -> String? {
        if forPatient >= waitingPerPatient {
            return "\(waitingPerPatient) reports already wait for this patient's link: the patient must redeem their activation code first"
        }
        if forInstitution >= waitingPerInstitution {
            return "\(waitingPerInstitution) reports already wait for patients' links at this institution"
        }
        return nil
    }

    /// When a code issued at `now` for `days` (the institution's, or the default) stops working; nil for a length
    /// outside 1 to 90 days (the schema's bounds).
    static func codeExpiry(now: Date, days: Int?) -> Date? {
        let days = days ?? defaultCodeDays
        guard (1...90).contains(days) else { return nil }
        return now.addingTimeInterval(TimeInterval(days) * 86_400)
    }
}
