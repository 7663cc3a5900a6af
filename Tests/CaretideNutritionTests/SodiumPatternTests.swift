import CaretideDomain
import CaretideNutrition
import PropertyBased
import Testing

@Suite("High sodium on 5 of 7 days")
struct SodiumPatternTests {
    static let first = LocalDate(year: 2026, month: 11, day: 2)!

    /// The dates `first + offset` for each offset.
    func days(_ offsets: [Int]) -> Set<LocalDate> { Set(offsets.map { Self.first.addingDays($0) }) }

    func date(_ offset: Int) -> LocalDate { Self.first.addingDays(offset) }

    @Test("4 of 7 days is no episode")
    func fourOfSeven() {
        #expect(SodiumPattern.episodes(overLimitDays: days([0, 1, 3, 5])).isEmpty)
        #expect(SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 3])).isEmpty)
        #expect(SodiumPattern.episodes(overLimitDays: []).isEmpty)
        // Five high days, but never five within 7 days.
        #expect(SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 3, 7])).isEmpty)
    }

    @Test("5 of 7 days is one episode, from its first high day to its last")
    func fiveOfSeven() {
        #expect(
            SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 4, 6]))
                == [SodiumPattern.Episode(start: date(0), end: date(6), daysOverLimit: 5)])
        #expect(
            SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 3, 4]))
                == [SodiumPattern.Episode(start: date(0), end: date(4), daysOverLimit: 5)])
    }

    @Test("10 high days in a row are one episode")
    func tenDays() {
        #expect(
            SodiumPattern.episodes(overLimitDays: days(Array(0..<10)))
                == [SodiumPattern.Episode(start: date(0), end: date(9), daysOverLimit: 10)])
    }

    @Test("A day or two under the limit inside a high stretch does not start a second episode; a week apart does")
    func gaps() {
        // Windows end on 4 (0–4), then on 7 (1, 2, 3, 4, 7) and 8: the later windows reach back into the episode.
        #expect(
            SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 3, 4, 7, 8]))
                == [SodiumPattern.Episode(start: date(0), end: date(8), daysOverLimit: 7)])
        #expect(
            SodiumPattern.episodes(overLimitDays: days([0, 1, 2, 3, 4, 20, 21, 22, 23, 24]))
                == [
                    SodiumPattern.Episode(start: date(0), end: date(4), daysOverLimit: 5),
                    SodiumPattern.Episode(start: date(20), end: date(24), daysOverLimit: 5),
                ])
        // The first qualifying window's first high day is the start, even when an earlier lone high day precedes it.
        #expect(
            SodiumPattern.episodes(overLimitDays: days([0, 10, 11, 12, 13, 14]))
                == [SodiumPattern.Episode(start: date(10), end: date(14), daysOverLimit: 5)])
    }

    @Test("Across a month and a year end")
    func calendar() throws {
        let december = try #require(LocalDate(year: 2026, month: 12, day: 29))
        let newYear = try #require(LocalDate(year: 2027, month: 1, day: 2))
        #expect(
            SodiumPattern.episodes(overLimitDays: Set((0..<5).map { december.addingDays($0) }))
                == [SodiumPattern.Episode(start: december, end: newYear, daysOverLimit: 5)])
        let february = try #require(LocalDate(year: 2028, month: 2, day: 27))  // 2028 is a leap year: 27, 28, 29, 1, 2
        let march = try #require(LocalDate(year: 2028, month: 3, day: 2))
        #expect(
            SodiumPattern.episodes(overLimitDays: Set((0..<5).map { february.addingDays($0) }))
                == [SodiumPattern.Episode(start: february, end: march, daysOverLimit: 5)])
    }

    /// For random sets of high days: every episode's first window holds at least 5 high days and starts it; every high
    /// day whose window qualifies lies in an episode; episodes are in order and do not overlap; each ends on a
    /// qualifying day and counts the high days it spans.
    @Test func randomDays() async {
        await propertyCheck(count: 500, input: Gen.bool(0.6).array(of: 0...45), Gen.int(in: 0...4000)) { flags, shift in
            let start = Self.first.addingDays(shift)
            let offsets = flags.indices.filter { flags[$0] }
            let high = Set(offsets)
            let dates = Set(offsets.map { start.addingDays($0) })
            // Counted by hand on the offsets: the high days of the window ending on `end`, and the first of them.
            func window(_ end: Int) -> [Int] { ((end - 6)...end).filter { high.contains($0) } }
            func qualifies(_ end: Int) -> Bool { high.contains(end) && window(end).count >= 5 }
            let offsetOfDate = Dictionary(uniqueKeysWithValues: flags.indices.map { (start.addingDays($0), $0) })
            func offset(_ date: LocalDate) -> Int { offsetOfDate[date] ?? -1 }

            let episodes = SodiumPattern.episodes(overLimitDays: dates)
            let spans = episodes.map { (start: offset($0.start), end: offset($0.end), count: $0.daysOverLimit) }
            for span in spans {
                #expect(span.start >= 0 && span.end >= span.start)
                // Its first qualifying window ends within a week of the start and begins its high days there.
                let firstWindow = (span.start...(span.start + 6)).first { qualifies($0) && window($0).first == span.start }
                #expect(firstWindow != nil, "no qualifying window starts the episode at \(span.start): \(offsets)")
                #expect(qualifies(span.end))
                #expect(span.count == (span.start...span.end).filter { high.contains($0) }.count)
            }
            for end in offsets where qualifies(end) {
                #expect(spans.contains { $0.start <= end && end <= $0.end }, "window ending \(end) outside every episode: \(offsets)")
            }
            for (earlier, later) in zip(spans, spans.dropFirst()) {
                #expect(earlier.end < later.start, "episodes overlap: \(spans), days \(offsets)")
            }
        }
    }

    /// Days arriving in order never move an episode's start (its key): a high day later than all before it extends the
    /// last episode or starts a new one, and leaves the earlier ones as they were.
    @Test func aLaterDayKeepsEveryStart() async {
        await propertyCheck(count: 300, input: Gen.bool(0.6).array(of: 0...40), Gen.int(in: 1...8)) { flags, gap in
            let offsets = flags.indices.filter { flags[$0] }
            let before = SodiumPattern.episodes(overLimitDays: days(offsets))
            let after = SodiumPattern.episodes(overLimitDays: days(offsets + [(offsets.last ?? 0) + gap]))
            let settled = max(before.count - 1, 0)
            #expect(Array(after.prefix(settled)) == Array(before.prefix(settled)))
            for episode in before { #expect(after.contains { $0.start == episode.start }, "days \(offsets)") }
        }
    }
}
