import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite struct QuietHoursTests {
    static let lisbon = TimeZone(identifier: "Europe/Lisbon")!
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static let night = QuietHours(from: LocalTime("22:00")!, to: LocalTime("07:00")!, timeZone: lisbon)

    @Test(
        "inside a window across midnight a notification waits for its end; outside, and urgent ones, go at once",
        arguments: [
            ("2026-11-23T21:59:00Z", Severity.attention, "2026-11-23T21:59:00Z"),
            ("2026-11-23T22:00:00Z", .attention, "2026-11-24T07:00:00Z"),
            ("2026-11-24T03:00:00Z", .normal, "2026-11-24T07:00:00Z"),
            ("2026-11-24T06:59:00Z", .attention, "2026-11-24T07:00:00Z"),
            ("2026-11-24T07:00:00Z", .attention, "2026-11-24T07:00:00Z"),
            ("2026-11-24T03:00:00Z", .urgent, "2026-11-24T03:00:00Z"),
            // Summer time: 22:00 WEST is 21:00 UTC, 07:00 WEST is 06:00 UTC.
            ("2026-07-01T21:30:00Z", .attention, "2026-07-02T06:00:00Z"),
        ])
    func window(arriving: String, severity: Severity, delivered: String) {
        #expect(Self.night.delivery(of: severity, arrivingAt: Self.utc(arriving)) == Self.utc(delivered))
    }

    @Test("a window within one day; an empty window holds nothing")
    func sameDay() {
        let siesta = QuietHours(from: LocalTime("13:00")!, to: LocalTime("15:00")!, timeZone: Self.lisbon)
        #expect(siesta.delivery(of: .attention, arrivingAt: Self.utc("2026-11-23T14:00:00Z")) == Self.utc("2026-11-23T15:00:00Z"))
        #expect(siesta.delivery(of: .attention, arrivingAt: Self.utc("2026-11-23T16:00:00Z")) == Self.utc("2026-11-23T16:00:00Z"))
        let none = QuietHours(from: LocalTime("08:00")!, to: LocalTime("08:00")!, timeZone: Self.lisbon)
        #expect(none.delivery(of: .normal, arrivingAt: Self.utc("2026-11-23T08:30:00Z")) == Self.utc("2026-11-23T08:30:00Z"))
    }

    @Test("Property: delivery is never before arrival, never more than a day later, and never inside the window")
    func invariants() async {
        let zones = ["Europe/Lisbon", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
        await propertyCheck(input: Gen.int(in: 0...3), Gen.int(in: 0...1439), Gen.int(in: 0...1439), Gen.int(in: 0...63_072_000)) {
            zone, from, to, seconds in
            func time(_ minutes: Int) -> LocalTime { LocalTime(String(format: "%02d:%02d", minutes / 60, minutes % 60))! }
            let quiet = QuietHours(from: time(from), to: time(to), timeZone: TimeZone(identifier: zones[zone])!)
            let arrival = Self.utc("2026-01-01T00:00:00Z").addingTimeInterval(Double(seconds))
            let delivered = quiet.delivery(of: .attention, arrivingAt: arrival)
            #expect(delivered >= arrival && delivered.timeIntervalSince(arrival) <= 86_400 + 3_600)
            #expect(quiet.delivery(of: .attention, arrivingAt: delivered) == delivered)
        }
    }
}
