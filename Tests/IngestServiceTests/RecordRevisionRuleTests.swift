import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// The rule a single write (POST or PUT) meets when its id is already stored (`RecordRevisionRule`): every case.
@Suite struct RecordRevisionRuleTests {
    typealias Rule = RecordRevisionRule
    let body: JSONValue = .object(["systolic": .number(120)])

    func stored(_ body: JSONValue, patient: String = "p-1", revision: Int = 3, deleted: Bool = false) -> RecordStore.Stored {
        RecordStore.Stored(
            key: RecordStore.Key(type: "measurement:pulse", id: "r-1"), patientID: patient,
            version: .init(revision: revision, updatedAt: Date(timeIntervalSince1970: 1_790_000_000), deleted: deleted, body: body),
            lastEventID: UUID())
    }

    @Test("a POST of a stored id is a duplicate, whatever its body: re-sending never changes a record")
    func createIsOnce() {
        #expect(Rule.decide(mode: .create, patientID: "p-1", body: body, stored: stored(body)) == .keep(.duplicate))
        #expect(Rule.decide(mode: .create, patientID: "p-1", body: .object([:]), stored: stored(body)) == .keep(.duplicate))
    }

    @Test("a PUT of the same body changes nothing; of another body is the next revision")
    func putCorrects() {
        #expect(Rule.decide(mode: .put, patientID: "p-1", body: body, stored: stored(body)) == .keep(.unchanged))
        #expect(Rule.decide(mode: .put, patientID: "p-1", body: .object([:]), stored: stored(body, revision: 3)) == .correct(revision: 4))
    }

    @Test("an id another patient's record holds is refused, before anything else is said of it")
    func idBelongsToOnePatient() {
        for mode in [RecordRoutes.Mode.create, .put] {
            #expect(Rule.decide(mode: mode, patientID: "p-2", body: body, stored: stored(body)) == .idTaken)
            #expect(Rule.decide(mode: mode, patientID: "p-2", body: body, stored: stored(body, deleted: true)) == .idTaken)
        }
    }

    @Test("a deleted record stays deleted: neither re-sent nor corrected")
    func deletedStaysDeleted() {
        for mode in [RecordRoutes.Mode.create, .put] {
            #expect(Rule.decide(mode: mode, patientID: "p-1", body: body, stored: stored(body, deleted: true)) == .deleted)
            #expect(Rule.decide(mode: mode, patientID: "p-1", body: .null, stored: stored(body, deleted: true)) == .deleted)
        }
    }
}
