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
            key: RecordStore.Key(kind: .measurement(.pulse), id: "r-1"), patientID: patient,
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

/// The one place that joins and splits a record's stored type: every kind reads back from its `record_type`, the
/// texts are the ones the table has always held, and a type this build does not know is an error, not a guess.
@Suite struct RecordKindTests {
    @Test("every kind reads back from its record_type, and the texts stay those of the stored rows")
    func roundTrip() throws {
        for kind in RecordKind.all { #expect(try RecordKind(recordType: kind.recordType) == kind) }
        #expect(Set(RecordKind.all.map(\.recordType)).count == RecordKind.all.count)
        #expect(RecordKind.measurement(.bloodPressure).recordType == "measurement:blood-pressure")
        #expect(RecordKind.examResult.recordType == "exam-result")
        #expect(RecordKind.melanomaRiskProfile.family == "melanoma-risk-profile")
        #expect(RecordKind.measurement(.lipidPanel).family == "measurement")
        #expect(RecordKind.measurement(.lipidPanel).measurementKind == .lipidPanel)
        #expect(RecordKind.npi.measurementKind == nil)
    }

    @Test("each kind's request schema is its own")
    func requestSchemas() {
        #expect(Set(RecordKind.all.map(\.requestSchema)).count == RecordKind.all.count)
        #expect(RecordKind.measurement(.hba1c).requestSchema.rawValue == "hba1c.request")
    }

    @Test("an unknown record_type is refused by name")
    func unknown() {
        #expect(throws: UnknownRecordType.self) { try RecordKind(recordType: "measurement:weight") }
        #expect(throws: UnknownRecordType.self) { try RecordKind(recordType: "measurement") }
    }
}
