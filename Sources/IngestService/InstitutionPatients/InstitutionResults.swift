import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging

/// Where an institution's exam report goes, the same for every door (the JSON upload and batch, HL7 v2, FHIR, the
/// inbound topics): the institution names its own patient id, and `InstitutionLinking.destination` decides. A report
/// for a linked registration is stored for its Caretide patient; one for a registration not yet linked waits, checked
/// and bounded, until the patient redeems their code (`deliverWaiting`); one for an id never registered is stored under
/// that id, as before registrations existed.
struct InstitutionResults: Sendable {
    let records: RecordRoutes

    enum Delivery: Sendable {
        /// Stored for `patientID`; `linked` when through a registration's link (the institution's id is not the patient's).
        case stored(RecordRoutes.Receipt, patientID: String, linked: Bool)
        /// Held until the registration is linked.
        case waiting
    }

    /// Stores or parks a checked report whose `patientID` is the institution's id for the patient.
    func store(_ write: RecordWrite, institutionID: String, examID: String, origin: WriteOrigin) async throws -> Delivery {
        let key = InstitutionPatientStore.Key(institutionID: institutionID, institutionPatientID: write.patientID)
        var destination = try await InstitutionPatientStore(records.context).destination(key)
        if destination == .waiting {
            let bodyText = write.record?.bodyText ?? "{}"
            // Parked under a share lock of the registration: a redemption between the look-up and now is seen here.
            let linked = try await records.context.transaction(auditing: origin, status: { $0 == nil ? 202 : 200 }) { handler in
                try await InstitutionPatientStore(handler).park(key, examID: examID, body: bodyText, at: Date())
            }
            guard let linked else { return .waiting }
            destination = .patient(linked, linked: true)
        }
        guard case .patient(let patientID, let linked) = destination else { return .waiting }
        let receipt = try await records.store(write.of(patientID: patientID), origin: origin)
        return .stored(receipt, patientID: patientID, linked: linked)
    }

    /// Retracts a report that waits (entered in error before its patient was linked); whether one waited.
    func retractWaiting(institutionID: String, examID: String, origin: WriteOrigin) async throws -> Bool {
        try await records.context.transaction(auditing: origin, status: { $0 ? 200 : 404 }) { handler in
            try await InstitutionPatientStore(handler).dropWaiting(institutionID: institutionID, examIDs: [examID]) > 0
        }
    }

    /// Stores, in a redemption's transaction, the reports that waited for the registration, for the patient it is now
    /// linked to, through the one writer of records (their release rules apply as to any report), and drops them from
    /// the wait. One that cannot be stored (refused by the rules in force since it arrived, or its exam id taken by
    /// another patient's report) stays waiting, listed for the institution, which can correct or retract it. Returns how
    /// many were stored.
    static func deliverWaiting(
        _ key: InstitutionPatientStore.Key, to patientID: String, records: RecordRoutes, handler: HandlerContext, traceID: String
    ) async throws -> Int {
        let definition = ExamResultRoutes.definition
        let store = InstitutionPatientStore(handler)
        let waiting = try await store.lockWaiting(key)
        var writes: [(examID: String, write: RecordWrite)] = []
        for (examID, body) in waiting {
            let recordID = ExamKey(institutionID: key.institutionID, examID: examID).subjectID
            guard let record = try? records.checkedRecord(definition, recordID: recordID, body: body) else { continue }
            writes.append(
                (examID, RecordWrite(definition: definition, change: .put(record), patientID: patientID, recordID: recordID, traceID: traceID)))
        }
        let results = try await RecordWriter.apply(writes.map(\.write), handler: handler)
        let delivered = zip(writes, results).compactMap { pair -> String? in if case .success = pair.1 { pair.0.examID } else { nil } }
        if delivered.count < waiting.count {
            handler.logger.warning(
                "exam reports stay waiting after a link: they cannot be stored as they are",
                metadata: ["institution_id": "\(key.institutionID)", "waiting": "\(waiting.count - delivered.count)"])
        }
        return try await store.dropWaiting(institutionID: key.institutionID, examIDs: delivered)
    }
}

extension RecordWrite {
    /// The same write for another patient: an institution's report once its patient id is resolved.
    func of(patientID: String) -> RecordWrite {
        RecordWrite(definition: definition, change: change, patientID: patientID, recordID: recordID, traceID: traceID)
    }
}
