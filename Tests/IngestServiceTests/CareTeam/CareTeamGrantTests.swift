import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// A patient's grant to a consultant (`CareTeamRoutes.grant`): made at the moment asked, until an expiry in the future
/// or until revoked; an expiry at that moment or before would grant nothing and is refused by name.
@Suite struct CareTeamGrantTests {
    let now = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z

    func refusal(expiresAt: Date?) -> [String] {
        do {
            _ = try CareTeamRoutes.grant(consultantID: "c-7", expiresAt: expiresAt, now: now)
            return []
        } catch let problem as HTTPProblem {
            #expect(problem.error == "the grant would already have lapsed")
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test("without an expiry the grant starts now and lasts until revoked")
    func openEnded() throws {
        let grant = try CareTeamRoutes.grant(consultantID: "c-7", expiresAt: nil, now: now)
        #expect(grant.consultantID == "c-7" && grant.grantedAt == now && grant.expiresAt == nil)
    }

    @Test("an expiry a second after now is kept as given")
    func expiresLater() throws {
        let grant = try CareTeamRoutes.grant(consultantID: "c-7", expiresAt: now.addingTimeInterval(1), now: now)
        #expect(grant.grantedAt == now && grant.expiresAt == now.addingTimeInterval(1))
    }

    @Test("an expiry at the very moment of the grant, or before it, is refused naming /expiresAt")
    func alreadyLapsed() {
        #expect(refusal(expiresAt: now) == ["/expiresAt"])
        #expect(refusal(expiresAt: now.addingTimeInterval(-1)) == ["/expiresAt"])
        #expect(refusal(expiresAt: now.addingTimeInterval(-86_400 * 365)) == ["/expiresAt"])
    }
}
