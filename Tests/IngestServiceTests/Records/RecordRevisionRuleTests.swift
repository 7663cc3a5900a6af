import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// The rule every write meets, whatever its door (`RecordRevisionRule`): every mode against nothing stored, a live
/// record, a deleted one and another patient's.
@Suite struct RecordRevisionRuleTests {
    typealias Rule = RecordRevisionRule
    let body: JSONValue = .object(["systolic": .number(120)])
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    func stored(_ body: JSONValue, patient: String = "p-1", revision: Int = 3, deleted: Bool = false) -> RecordStore.Stored {
        RecordStore.Stored(
            key: RecordStore.Key(kind: .measurement(.pulse), id: "r-1"), patientID: patient,
            version: .init(revision: revision, updatedAt: t0, deleted: deleted, body: body),
            lastEventID: UUID())
    }

    func sync(_ body: JSONValue?, after seconds: TimeInterval) -> Rule.Mode {
        .sync(LastWriterWins.Change(updatedAt: t0.addingTimeInterval(seconds), deleted: body == nil, body: body))
    }

    @Test("nothing stored: a create, a put or a device's update inserts; a deletion finds nothing, a device's changes nothing")
    func nothingStored() {
        #expect(Rule.decide(.create, patientID: "p-1", stored: nil) == .insert)
        #expect(Rule.decide(.put(body), patientID: "p-1", stored: nil) == .insert)
        #expect(Rule.decide(sync(body, after: 0), patientID: "p-1", stored: nil) == .insert)
        #expect(Rule.decide(.delete, patientID: "p-1", stored: nil) == .notFound)
        #expect(Rule.decide(sync(nil, after: 0), patientID: "p-1", stored: nil) == .keep(.deleted))
    }

    @Test("a POST of a stored id is a duplicate, whatever its body: re-sending never changes a record")
    func createIsOnce() {
        #expect(Rule.decide(.create, patientID: "p-1", stored: stored(body)) == .keep(.duplicate))
        #expect(Rule.decide(.create, patientID: "p-1", stored: stored(.object([:]))) == .keep(.duplicate))
    }

    @Test("a PUT of the same body changes nothing; of another body is the next revision")
    func putCorrects() {
        #expect(Rule.decide(.put(body), patientID: "p-1", stored: stored(body)) == .keep(.unchanged))
        #expect(Rule.decide(.put(.object([:])), patientID: "p-1", stored: stored(body, revision: 3)) == .revise(revision: 4))
    }

    @Test("a DELETE marks a live record deleted; deleting it again answers the same, with nothing new")
    func deleteOnce() {
        #expect(Rule.decide(.delete, patientID: "p-1", stored: stored(body)) == .delete)
        #expect(Rule.decide(.delete, patientID: "p-1", stored: stored(body, deleted: true)) == .keep(.deleted))
    }

    @Test("a device's change follows the last writer: newer revises, older conflicts, the same body later refreshes")
    func deviceChanges() {
        #expect(Rule.decide(sync(.object([:]), after: 1), patientID: "p-1", stored: stored(body, revision: 2)) == .revise(revision: 3))
        #expect(Rule.decide(sync(.object([:]), after: -1), patientID: "p-1", stored: stored(body)) == .conflict(.stale))
        #expect(Rule.decide(sync(body, after: 60), patientID: "p-1", stored: stored(body)) == .refresh)
        #expect(Rule.decide(sync(body, after: -60), patientID: "p-1", stored: stored(body)) == .keep(.unchanged))
        #expect(Rule.decide(sync(nil, after: -60), patientID: "p-1", stored: stored(body)) == .delete)
        #expect(Rule.decide(sync(body, after: 60), patientID: "p-1", stored: stored(body, deleted: true)) == .conflict(.deleted))
        #expect(Rule.decide(sync(nil, after: 60), patientID: "p-1", stored: stored(body, deleted: true)) == .keep(.deleted))
    }

    @Test("an id another patient's record holds is refused, before anything else is said of it; a deletion does not tell it exists")
    func idBelongsToOnePatient() {
        for deleted in [false, true] {
            let theirs = stored(body, patient: "p-2", deleted: deleted)
            for mode in [Rule.Mode.create, .put(body), sync(body, after: 60), sync(nil, after: 60)] {
                #expect(Rule.decide(mode, patientID: "p-1", stored: theirs) == .idTaken)
            }
            #expect(Rule.decide(.delete, patientID: "p-1", stored: theirs) == .notFound)
        }
    }

    @Test("a deleted record stays deleted: neither re-sent nor corrected by the server's writes")
    func deletedStaysDeleted() {
        for mode in [Rule.Mode.create, .put(body), .put(.null)] {
            #expect(Rule.decide(mode, patientID: "p-1", stored: stored(body, deleted: true)) == .deleted)
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
        let definitions =
            MeasurementKind.allCases.map(MeasurementRoutes.definition) + [
                ClinicalInputRoutes.npi, ClinicalInputRoutes.melanomaRiskProfile, ExamResultRoutes.definition,
                MealRoutes.definition(catalogue: FoodCatalogue()),
            ]
        #expect(Set(definitions.map(\.kind)) == Set(RecordKind.all))
        #expect(Set(definitions.map(\.requestSchema)).count == RecordKind.all.count)
        #expect(MeasurementRoutes.definition(.hba1c).requestSchema.rawValue == "hba1c.request")
    }

    @Test("an unknown record_type is refused by name")
    func unknown() {
        #expect(throws: UnknownRecordType.self) { try RecordKind(recordType: "measurement:weight") }
        #expect(throws: UnknownRecordType.self) { try RecordKind(recordType: "measurement") }
    }
}
