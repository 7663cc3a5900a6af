import Foundation
import Testing

@testable import NotificationService

/// A broadcast's audience, and its delivery in batches from a cursor that never names a patient once it is done.
@Suite struct BroadcastRulesTests {
    static func audience(areaCode: String? = nil, patientIds: [String]? = nil) -> Broadcasts.Audience {
        BroadcastRoutes.Body.Audience(areaCode: areaCode, patientIds: patientIds).scope
    }

    @Test("an area's subscribers, else the patients listed, else everyone; an empty list is everyone")
    func scope() {
        #expect(Self.audience(areaCode: "lisbon") == .area("lisbon"))
        #expect(Self.audience(areaCode: "lisbon", patientIds: ["p-1"]) == .area("lisbon"))
        #expect(Self.audience(patientIds: ["p-2", "p-1"]) == .patients(["p-2", "p-1"]))
        #expect(Self.audience(patientIds: []) == .all)
        #expect(Self.audience() == .all)
    }

    @Test("listed patients are stored in id order, the order delivery walks them in")
    func stored() {
        let listed = Broadcasts.columns(of: .patients(["p-3", "p-1", "p-2"]))
        #expect(listed.scope == "patients" && listed.area == nil && listed.patients == ["p-1", "p-2", "p-3"])
        let area = Broadcasts.columns(of: .area("lisbon"))
        #expect(area.scope == "area" && area.area == "lisbon" && area.patients.isEmpty)
        let all = Broadcasts.columns(of: .all)
        #expect(all.scope == "all" && all.area == nil && all.patients.isEmpty)
    }

    @Test("a batch of listed patients starts after the cursor and holds at most a batch's worth")
    func listedBatches() {
        let listed = (0...Broadcasts.batch).map { String(format: "p-%05d", $0) }
        let first = Broadcasts.listedBatch(listed, after: "")
        #expect(first.count == Broadcasts.batch && first.first == "p-00000" && first.last == "p-01999")
        #expect(Broadcasts.listedBatch(listed, after: "p-01999") == ["p-02000"])
        #expect(Broadcasts.listedBatch(listed, after: "p-02000").isEmpty)
    }

    @Test("a full batch moves the cursor to its last patient; a short or empty one completes and clears it")
    func progress() {
        let full = (1...Broadcasts.batch).map { String(format: "p-%05d", $0) }
        let afterFull = Broadcasts.progress(after: full, from: "p-00000")
        #expect(afterFull.deliveredThrough == "p-02000" && !afterFull.completed)
        let afterShort = Broadcasts.progress(after: ["p-02001", "p-02002"], from: "p-02000")
        #expect(afterShort.deliveredThrough == "" && afterShort.completed)
        let afterNone = Broadcasts.progress(after: [], from: "p-02002")
        #expect(afterNone.deliveredThrough == "" && afterNone.completed)
    }

    @Test("walked batch by batch, a broadcast to listed patients reaches each once, in order, and ends naming nobody")
    func wholeDelivery() {
        let listed = Broadcasts.columns(of: .patients((0..<4_500).reversed().map { String(format: "p-%05d", $0) })).patients
        var cursor = ""
        var reached: [String] = []
        var batches = 0
        var completed = false
        while !completed && batches < 10 {
            let patients = Broadcasts.listedBatch(listed, after: cursor)
            reached += patients
            batches += 1
            let step = Broadcasts.progress(after: patients, from: cursor)
            cursor = step.deliveredThrough
            completed = step.completed
        }
        #expect(batches == 3 && completed && cursor == "")
        #expect(reached == listed && Set(reached).count == 4_500)
    }
}
