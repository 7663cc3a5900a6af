import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

/// `?from=&to=`: times or dates, `from` inclusive and `to` exclusive (a date `to` through the end of its day), each bad
/// one named in the 400.
@Suite struct PeriodTests {
    private func date(_ text: String) -> Date { Timestamp.parse(text)! }

    @Test("dates are whole UTC days: from 2026-11-01 to 2026-11-30 is all of November")
    func dates() throws {
        let november = try Period.from(from: "2026-11-01", to: "2026-11-30")
        #expect(november.start == date("2026-11-01T00:00:00Z"))
        #expect(november.end == date("2026-12-01T00:00:00Z"))
        #expect(november.contains(date("2026-11-30T23:59:59.999Z")))
        #expect(!november.contains(date("2026-12-01T00:00:00Z")))
        #expect(!november.contains(date("2026-10-31T23:59:59.999Z")))
    }

    @Test("times keep their offset, a + sent unencoded included; from is inclusive, to exclusive")
    func times() throws {
        let period = try Period.from(from: "2026-11-01T00:00:00 01:00", to: "2026-11-02T00:00:00+01:00")
        #expect(period.start == date("2026-10-31T23:00:00Z"))
        #expect(period.contains(period.start))
        #expect(!period.contains(period.end))
    }

    @Test("an open side reaches every time Caretide accepts")
    func open() throws {
        #expect(try Period.from(from: nil, to: nil) == .always)
        let since = try Period.from(from: "2026-01-01", to: nil)
        #expect(since.end == Timestamp.plausibleRange.upperBound)
        #expect(since.contains(date("9999-12-31T23:59:59Z")))
    }

    @Test("each malformed side is named, and a to not after from is refused")
    func refusals() {
        #expect {
            try Period.from(from: "yesterday", to: "2026-13-01")
        } throws: { error in
            (error as? HTTPProblem)?.violations.map(\.pointer.description) == ["/from", "/to"]
        }
        #expect {
            try Period.from(from: "2026-11-02", to: "2026-11-01")
        } throws: { error in
            (error as? HTTPProblem)?.violations.map(\.message) == ["must be after from"]
        }
        // The same day as both: that whole day, not empty.
        #expect((try? Period.from(from: "2026-11-02", to: "2026-11-02"))?.duration == 86_400)
    }
}
