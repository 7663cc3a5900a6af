import CaretideSchemas
import Foundation
import PropertyBased
import Testing

@Suite struct TimeOrderedUUIDTests {
    @Test("version 7, RFC 9562 variant, the millisecond timestamp in the first 48 bits")
    func layout() {
        let id = UUID.timeOrdered(at: Date(timeIntervalSince1970: 1_795_000_000.123))
        let hex = Array(id.uuidString.lowercased().replacingOccurrences(of: "-", with: ""))
        let milliseconds = String(1_795_000_000_123, radix: 16)
        #expect(String(hex[0..<12]) == String(repeating: "0", count: 12 - milliseconds.count) + milliseconds)
        #expect(hex[12] == "7")
        #expect("89ab".contains(hex[16]))
    }

    @Test("ids of later milliseconds sort after earlier ones, as text and as bytes; ids are distinct")
    func ordering() async {
        await propertyCheck(input: Gen.int(in: 0...4_000_000_000_000), Gen.int(in: 1...1_000_000)) { milliseconds, gap in
            let earlier = UUID.timeOrdered(at: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            let later = UUID.timeOrdered(at: Date(timeIntervalSince1970: Double(milliseconds + gap) / 1000))
            #expect(earlier.uuidString < later.uuidString)
            #expect(earlier != UUID.timeOrdered(at: Date(timeIntervalSince1970: Double(milliseconds) / 1000)))
        }
    }

    @Test("every one of the 74 random bits varies, and the version and variant bits never do")
    func randomBits() {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        let ids = (0..<512).map { _ in withUnsafeBytes(of: UUID.timeOrdered(at: date).uuid) { Array($0) } }
        for bit in 48..<128 {
            let values = Set(ids.map { ($0[bit / 8] >> (7 - bit % 8)) & 1 })
            let fixed = (48..<52).contains(bit) || (64..<66).contains(bit)
            #expect(values.count == (fixed ? 1 : 2), "bit \(bit)")
        }
    }

    @Test("ids drawn from many threads across many refills of the random pool are all different")
    func poolRefillsAcrossThreads() async {
        // Each task draws more than one refill's worth, so refills race with draws on other threads.
        let perTask = 2_000
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<perTask).map { _ in UUID.timeOrdered() } } }
            return await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        #expect(ids.count == 8 * perTask)
        #expect(Set(ids).count == ids.count)
        let words = (0..<1_000).map { _ in SystemRandom.twoWords() }
        #expect(Set(words.map { "\($0.0)-\($0.1)" }).count == words.count)
    }

    @Test("named UUIDs: the same name gives the same version-8 id in every process, different names different ids")
    func named() async {
        // FNV-1a 128 of "" is its offset basis; the id is fixed forever, whichever process makes it.
        #expect(UUID.named("").uuidString.lowercased() == "6c62272e-07bb-8142-a2b8-21756295c58d")
        #expect(UUID.named("notification/a/patient/p-1") == UUID.named("notification/a/patient/p-1"))
        await propertyCheck(input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...1_000)) { base, step in
            let one = UUID.named("n/\(base)")
            let other = UUID.named("n/\(base + step)")
            #expect(one != other)
            #expect(one.uuid.6 >> 4 == 8 && one.uuid.8 >> 6 == 2)
        }
    }
}
