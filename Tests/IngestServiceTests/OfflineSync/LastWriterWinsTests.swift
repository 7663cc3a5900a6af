import CaretideRuntime
import CaretideSchemas
import Foundation
import PropertyBased
import Testing

@testable import IngestService

/// The rule an offline change meets (`LastWriterWins`): every case, and the property that makes devices converge.
@Suite struct LastWriterWinsTests {
    typealias Rule = LastWriterWins
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    func stored(_ body: JSONValue, at time: Date, revision: Int = 1, deleted: Bool = false) -> Rule.Stored {
        Rule.Stored(revision: revision, updatedAt: time, deleted: deleted, body: body)
    }

    func update(_ body: JSONValue, at time: Date) -> Rule.Change { Rule.Change(updatedAt: time, deleted: false, body: body) }
    func deletion(at time: Date) -> Rule.Change { Rule.Change(updatedAt: time, deleted: true, body: nil) }

    @Test("a new record is inserted; deleting one never stored changes nothing")
    func nothingStored() {
        #expect(Rule.decide(update(.number(1), at: t0), stored: nil) == .insert)
        #expect(Rule.decide(deletion(at: t0), stored: nil) == .unchanged)
    }

    @Test("a newer update revises; one as new or older is a stale conflict; the same body later only advances the time")
    func updates() {
        let current = stored(.number(1), at: t0)
        #expect(Rule.decide(update(.number(2), at: t0.addingTimeInterval(0.001)), stored: current) == .revise)
        #expect(Rule.decide(update(.number(2), at: t0), stored: current) == .conflict(.stale))
        #expect(Rule.decide(update(.number(2), at: t0.addingTimeInterval(-60)), stored: current) == .conflict(.stale))
        #expect(Rule.decide(update(.number(1), at: t0.addingTimeInterval(-60)), stored: current) == .unchanged)
        #expect(Rule.decide(update(.number(1), at: t0), stored: current) == .unchanged)
        #expect(Rule.decide(update(.number(1), at: t0.addingTimeInterval(60)), stored: current) == .refresh)
        #expect(
            Rule.apply(.refresh, of: update(.number(1), at: t0.addingTimeInterval(60)), to: current)
                == stored(.number(1), at: t0.addingTimeInterval(60)))
    }

    @Test("a deletion wins over the stored version whatever its time; a deleted record stays deleted")
    func deletions() {
        let current = stored(.number(1), at: t0)
        #expect(Rule.decide(deletion(at: t0.addingTimeInterval(-3600)), stored: current) == .delete)
        #expect(Rule.decide(deletion(at: t0.addingTimeInterval(3600)), stored: current) == .delete)
        let gone = stored(.number(1), at: t0, deleted: true)
        #expect(Rule.decide(deletion(at: t0.addingTimeInterval(60)), stored: gone) == .unchanged)
        #expect(Rule.decide(update(.number(2), at: t0.addingTimeInterval(60)), stored: gone) == .conflict(.deleted))
    }

    @Test("applying an outcome gives the next revision, keeps the body of a deletion, and leaves conflicts alone")
    func applying() {
        let current = stored(.number(1), at: t0, revision: 3)
        let newer = update(.number(2), at: t0.addingTimeInterval(1))
        #expect(Rule.apply(.revise, of: newer, to: current) == stored(.number(2), at: newer.updatedAt, revision: 4))
        #expect(Rule.apply(.delete, of: deletion(at: t0), to: current) == stored(.number(1), at: t0, revision: 3, deleted: true))
        #expect(Rule.apply(.conflict(.stale), of: newer, to: current) == current)
        #expect(Rule.apply(.insert, of: newer, to: nil) == stored(.number(2), at: newer.updatedAt))
    }

    /// Folds changes as an upload (or a series of uploads) would meet them.
    static func replay(_ changes: [Rule.Change]) -> Rule.Stored? {
        changes.reduce(nil) { state, change in Rule.apply(Rule.decide(change, stored: state), of: change, to: state) }
    }

    @Test(
        "devices converge: whatever order later changes arrive in (distinct times), the end is the same: deleted if any device deleted, else the latest body"
    )
    func orderDoesNotMatter() async {
        // A record created first (a device can only delete or edit what reached the server), then up to five changes
        // (a body 0-3, or a deletion) at distinct times, arriving shuffled.
        let change = Gen.int(in: 0...4)
        await propertyCheck(input: Gen.int(in: 0...3), change.array(of: 0...5), Gen.int(in: 0...1_000_000)) { first, kinds, seed in
            let creation = update(.number(Double(first)), at: t0)
            let later = kinds.enumerated().map { offset, kind in
                let time = t0.addingTimeInterval(Double(offset + 1))
                return kind == 4 ? deletion(at: time) : update(.number(Double(kind)), at: time)
            }
            var generator = SplitMix(seed: UInt64(seed))
            let inOrder = Self.replay([creation] + later)
            let outOfOrder = Self.replay([creation] + later.shuffled(using: &generator))
            if later.contains(where: \.deleted) {
                #expect(inOrder?.deleted == true)
                #expect(outOfOrder?.deleted == true)
            } else {
                let latest = ([creation] + later).max { $0.updatedAt < $1.updatedAt }!.body
                // The content and its time converge; the revision counts what the server applied, so it may differ.
                #expect(inOrder?.body == latest && outOfOrder?.body == latest)
                #expect(inOrder?.updatedAt == outOfOrder?.updatedAt)
            }
        }
    }

    @Test("sync settings: defaults, and each bad variable named")
    func settings() throws {
        #expect(try SyncSettings.fromEnvironment([:]) == SyncSettings())
        #expect(
            try SyncSettings.fromEnvironment(["SYNC_TOMBSTONE_RETENTION_DAYS": "7", "SYNC_PURGE_INTERVAL_SECONDS": "60"])
                == SyncSettings(tombstoneRetention: .seconds(7 * 86_400), purgeInterval: .seconds(60)))
        do {
            _ = try SyncSettings.fromEnvironment(["SYNC_TOMBSTONE_RETENTION_DAYS": "-1", "SYNC_PURGE_INTERVAL_SECONDS": "soon"])
            Issue.record("bad settings were accepted")
        } catch {
            #expect(error.problems.count == 2)
            #expect(error.problems.allSatisfy { $0.hasPrefix("SYNC_") })
        }
    }
}

/// A seeded generator, so a failing shuffle can be replayed from the property's reported input.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
