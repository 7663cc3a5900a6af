import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import ScoringService

/// A report shared outside Caretide: how long its link opens, what the patient's list calls it, when an address is
/// turned away, how the viewer's form is read and when a typed date of birth counts. The lock after wrong codes is
/// counted in SQL and is driven end to end by the scoring flow's outside-share test.
@Suite struct OutsideShareRulesTests {
    /// 2026-09-21T00:00:00Z.
    static let made = Date(timeIntervalSince1970: 1_789_948_800)
    static let day: TimeInterval = 86_400

    @Test("a link opens 14 days unless the patient chose from 1 to 90; the request schema refuses 0 and 91")
    func expiry() {
        #expect(OutsideShareRoutes.expiry(now: Self.made, days: nil) == Self.made.addingTimeInterval(14 * Self.day))
        #expect(OutsideShareRoutes.expiry(now: Self.made, days: 1) == Self.made.addingTimeInterval(Self.day))
        #expect(OutsideShareRoutes.expiry(now: Self.made, days: 90) == Self.made.addingTimeInterval(90 * Self.day))
        let catalog = SchemaCatalog.bundled
        for days in [1, 14, 90] {
            #expect(catalog.validateRequest(OutsideShareRoutes.Body.schema, ["expiresInDays": .number(Double(days))]) == [], "\(days) days")
        }
        for days in [-1, 0, 91] {
            let violations = catalog.validateRequest(OutsideShareRoutes.Body.schema, ["expiresInDays": .number(Double(days))])
            #expect(violations.map(\.pointer) == ["/expiresInDays"], "\(days) days")
        }
    }

    @Test("the patient's list says revoked before locked before expired; a share is expired from its expiry instant on")
    func status() {
        let expiresAt = OutsideShareRoutes.expiry(now: Self.made, days: nil)
        let before = expiresAt.addingTimeInterval(-1)
        let after = expiresAt.addingTimeInterval(1)
        #expect(OutsideShareStore.status(revokedAt: nil, lockedAt: nil, expiresAt: expiresAt, now: before) == "active")
        #expect(OutsideShareStore.status(revokedAt: nil, lockedAt: nil, expiresAt: expiresAt, now: expiresAt) == "expired")
        #expect(OutsideShareStore.status(revokedAt: nil, lockedAt: before, expiresAt: expiresAt, now: before) == "locked")
        #expect(OutsideShareStore.status(revokedAt: nil, lockedAt: before, expiresAt: expiresAt, now: after) == "locked")
        #expect(OutsideShareStore.status(revokedAt: before, lockedAt: before, expiresAt: expiresAt, now: after) == "revoked")
        #expect(OutsideShareStore.status(revokedAt: Self.made, lockedAt: nil, expiresAt: expiresAt, now: before) == "revoked")
    }

    @Test("an address is turned away once 20 wrong attempts are counted in its window, not at 19")
    func throttle() {
        #expect(OutsideShareStore.failuresPerAddress == 20)
        #expect(!OutsideShareStore.throttles(recentFailures: 0))
        #expect(!OutsideShareStore.throttles(recentFailures: 19))
        #expect(OutsideShareStore.throttles(recentFailures: 20))
        #expect(OutsideShareStore.throttles(recentFailures: 21))
    }

    @Test("what the pages tell a viewer matches the rules: five wrong tries lock, a throttled network waits 15 minutes")
    func words() throws {
        let keys = [OutsideSharePage.Message.gone, .locked, .throttled].map(\.key) + [OutsideSharePage.Problem.name, .wrong].map(\.key)
        #expect(keys.allSatisfy { TipTexts.keys.contains($0) })
        let wrong = try #require(TipTexts.english.text(OutsideSharePage.Problem.wrong.key))
        #expect(OutsideShareStore.failuresBeforeLock == 5 && wrong.contains("After five wrong tries the link locks"))
        let throttled = try #require(TipTexts.english.text(OutsideSharePage.Message.throttled.key))
        #expect(throttled.contains("Try again in \(Int(OutsideShareStore.addressWindow / 60)) minutes"))
    }

    @Test("a typed date of birth counts when it is the profile's, spaces around it aside; a profile without one matches nothing")
    func birthDate() {
        let born = LocalDate("1980-02-29")
        #expect(OutsideShareRoutes.birthDateMatches("1980-02-29", birthDate: born))
        #expect(OutsideShareRoutes.birthDateMatches(" 1980-02-29 ", birthDate: born))
        #expect(!OutsideShareRoutes.birthDateMatches("1980-03-01", birthDate: born))
        #expect(!OutsideShareRoutes.birthDateMatches("29/02/1980", birthDate: born))
        #expect(!OutsideShareRoutes.birthDateMatches("", birthDate: born))
        // An empty field and a profile without a date would both be nil: still no match.
        #expect(!OutsideShareRoutes.birthDateMatches("", birthDate: nil))
        #expect(!OutsideShareRoutes.birthDateMatches("1980-02-29", birthDate: nil))
    }

    @Test("the viewer's form is read as a browser sends it: + is a space, %2B a plus, values trimmed, blank pairs skipped")
    func formFields() throws {
        let fields = try #require(FormBody("name=+Dr+Jos%C3%A9+Lima+&code=AB%2BCD&&birthDate=1980-02-29&format=pdf"))
        #expect(fields["name"] == "Dr José Lima")
        #expect(fields["code"] == "AB+CD")
        #expect(fields["birthDate"] == "1980-02-29")
        #expect(fields["format"] == "pdf")
        #expect(fields["other"] == nil)
        #expect(FormBody("name")?["name"] == "")
        #expect(FormBody("") != nil)
    }

    @Test("a form is refused whole for a field given twice, a control character, a broken escape or a value over 200 characters")
    func formRefusals() {
        #expect(FormBody("name=Ana&code=1&code=2") == nil)
        #expect(FormBody("name=Ana%0AHacker&code=1") == nil)
        #expect(FormBody("name=Ana&code=%ZZ") == nil)
        let longest = String(repeating: "a", count: FormField.maximumLength)
        #expect(FormBody("name=" + longest)?["name"] == longest)
        #expect(FormBody("name=" + longest + "a") == nil)
    }
}
