import CaretideIdentity
public import CaretideSchemas
import CaretideStore
public import Foundation
import Logging
public import PostgresNIO

/// What a service holds about a patient: the tables of its rows, which an erasure deletes and an export
/// copies, and the FHIR R4 resources its rows make in the patient's export. An erasure runs on
/// `patient.erasure-requested`, beside what the runtime erases in every service (`SharedErasure`), inside the
/// transaction that records the event processed, retires the patient (`erased_patients`) and enqueues the service's
/// `patient.erasure-confirmed`: all of it or none, so a confirmation is never sent for an erasure that did not commit.
public struct PatientData: Sendable {
    /// Work of the service's own before the tables are emptied (announcing withdrawals of what left already).
    public typealias Step = @Sendable (_ patientID: String, _ cause: ValidatedEvent, _ context: HandlerContext) async throws -> Void
    /// The FHIR resources of the service's part of an export, from its tables' rows (by table name).
    public typealias Resources = @Sendable (_ patientID: String, _ rows: [String: [JSONValue]]) -> [JSONValue]

    public let tables: [PatientTable]
    let first: Step?
    let after: [String]
    let resources: Resources

    /// Nothing of the service's own (a service that keeps no patient data still retires the patient and confirms).
    public init() { self.init(tables: []) }

    /// - Parameters:
    ///   - first: run before the tables are emptied.
    ///   - tables: emptied of the patient's rows in order (children before the rows they reference), and exported.
    ///   - after: statements run once the tables are empty, with the patient's id as `$1`.
    ///   - resources: the FHIR resources of the service's export part.
    public init(
        first: Step? = nil, tables: [PatientTable], after: [String] = [], resources: @escaping Resources = { _, _ in [] }
    ) {
        self.first = first
        self.tables = tables
        self.after = after
        self.resources = resources
    }

    /// Erases the patient in this service: what every service keeps, then the service's own rows, then retires the
    /// id and confirms on `caretide.erasure-confirmations`.
    func apply(_ event: ValidatedEvent, context: HandlerContext) async throws {
        guard let patientID = event.patientID else { throw UnprocessableEvent("an erasure request names no patient") }
        let request = try event.payload(PatientErasureRequested.self)
        try await SharedErasure.erase(patientID: patientID, context: context)
        try await first?(patientID, event, context)
        for statement in tables.map(\.deletion) + after {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(patientID)
            try await context.connection.query(PostgresQuery(unsafeSQL: statement, binds: bindings), logger: context.logger)
        }
        let erasedAt = Date()
        try await ErasedPatients.retire(patientID, erasureID: request.erasureID, at: erasedAt, context: context)
        try await context.publish(
            context.envelope(
                for: PatientErasureConfirmed(erasureID: request.erasureID, service: context.producer, erasedAt: erasedAt), causedBy: event))
        context.logger.info("patient erased", metadata: [LogKey.erasureID: "\(request.erasureID)"])
    }
}

/// What the runtime keeps in every service's schema that can hold a patient's data: the projection of their grants,
/// the answers kept for repeated requests, and events about them not yet sent or parked after a failure. The audit
/// trail stays: it holds ids alone, and it is where the erasure itself is recorded.
enum SharedErasure {
    static func erase(patientID: String, context: HandlerContext) async throws {
        // JSON bodies name the patient as a string: searched quoted, so "p-1" does not match "p-10".
        let quoted = "\"\(patientID)\""
        let logger = context.logger
        let connection = context.connection
        try await connection.query("DELETE FROM care_team_grants WHERE patient_id = \(patientID)", logger: logger)
        // The patient's own keys (a replay would answer the erased write as if it still stood), and anyone's whose kept
        // answer names them (a consultant's or an institution's write for them).
        let owner = IdempotencyKeys.owner(role: .patient, subject: patientID)
        try await connection.query(
            "DELETE FROM idempotency_keys WHERE owner = \(owner) OR position(convert_to(\(quoted), 'UTF8') in response) > 0", logger: logger)
        try await connection.query(
            "DELETE FROM outbox WHERE message_key = \(patientID) OR position(convert_to(\(quoted), 'UTF8') in body) > 0", logger: logger)
        try await connection.query(
            "DELETE FROM outbox_parked WHERE message_key = \(patientID) OR position(convert_to(\(quoted), 'UTF8') in body) > 0", logger: logger)
        try await connection.query(
            """
            DELETE FROM parked_messages
            WHERE message_key = convert_to(\(patientID), 'UTF8') OR position(convert_to(\(quoted), 'UTF8') in coalesce(value, ''::bytea)) > 0
            """, logger: logger)
    }
}

/// The patients whose data a service erased: their ids and the erasure, nothing else. An event about one of them
/// that was in flight when the erasure ran (another topic, another partition) is dropped rather than applied, so
/// nothing of the patient comes back.
enum ErasedPatients {
    static func retire(_ patientID: String, erasureID: UUID, at erasedAt: Date, context: HandlerContext) async throws {
        try await context.connection.query(
            """
            INSERT INTO erased_patients (patient_id, erasure_id, erased_at) VALUES (\(patientID), \(erasureID), \(erasedAt))
            ON CONFLICT (patient_id) DO NOTHING
            """, logger: context.logger)
    }

    /// Whether the patient's data was erased here: a write for them is refused (`AccessGuard`).
    static func contains(_ patientID: String, database: Database, logger: Logger) async throws -> Bool {
        try await !database.client.fetchAll(
            "SELECT 1 FROM erased_patients WHERE patient_id = \(patientID)", as: Int.self, logger: logger
        ).isEmpty
    }

    /// Which of `patientIDs` were erased here.
    static func among(_ patientIDs: [String], context: HandlerContext) async throws -> Set<String> {
        guard !patientIDs.isEmpty else { return [] }
        return Set(try await context.connection.execute(Among(patientIDs: patientIDs), logger: context.logger).collectAll())
    }

    /// Claims a consumed batch's events (`ProcessedEvents`: the ids seen here for the first time) and names which of
    /// `patientIDs` were erased here, in one statement: a batch's transaction used to ask the two in turn, a round trip
    /// each.
    static func claim(
        _ eventIDs: [UUID], patientIDs: [String], consumer: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> (fresh: Set<UUID>, erased: Set<String>) {
        var claimed = (fresh: Set<UUID>(), erased: Set<String>())
        let rows = try await connection.execute(Claim(consumer: consumer, eventIDs: eventIDs, patientIDs: patientIDs), logger: logger)
        for try await (eventID, patientID) in rows {
            if let eventID { claimed.fresh.insert(eventID) }
            if let patientID { claimed.erased.insert(patientID) }
        }
        return claimed
    }

    /// Prepared, as every consumed batch runs it. The data-modifying CTE runs to completion whatever the outer query
    /// reads, and the erased patients are read as a statement of their own sent in its place would read them.
    struct Claim: PostgresPreparedStatement {
        static let name = "caretide.claim-events-noting-erased"
        static let sql = """
            WITH claimed AS (\(ProcessedEvents.claimingInsert))
            SELECT event_id, NULL::text FROM claimed
            UNION ALL
            SELECT NULL::uuid, patient_id FROM erased_patients WHERE patient_id = ANY($3::text[])
            """
        typealias Row = (UUID?, String?)
        let consumer: String
        let eventIDs: [UUID]
        let patientIDs: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(consumer)
            bindings.append(eventIDs)
            bindings.append(patientIDs)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (UUID?, String?) { try row.decode((UUID?, String?).self) }
    }

    /// Prepared: a batch handled outside a consumer's transaction asks it (`ErasingHandler`).
    struct Among: PostgresPreparedStatement {
        static let name = "caretide.erased-patients-among"
        static let sql = "SELECT patient_id FROM erased_patients WHERE patient_id = ANY($1::text[])"
        typealias Row = String
        let patientIDs: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(patientIDs)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
    }
}

/// Applies erasure requests in every consuming service, and keeps what arrives about an erased patient from being
/// applied: the service's handler sees neither.
struct ErasingHandler: EventHandler {
    let service: any EventHandler
    let patientData: PatientData
    /// The topics the service itself consumes: where `caretide.patients` is not one of them, it is read for erasures
    /// alone and the rest of it is not for the service.
    let ownTopics: Set<Topic>

    var transactionTimeout: Duration? { service.transactionTimeout }
    var batchWindow: Duration? { service.batchWindow }

    /// An erasure request is applied in every service; the rest of `caretide.patients` is dropped where the service
    /// does not consume that topic (`erase`); anything else is needed as the service's handler says.
    func needsNothing(_ event: ValidatedEvent) -> Bool {
        if event.eventType == .patientErasureRequested { return false }
        if event.eventType.topic == .patients, !ownTopics.contains(.patients) { return true }
        return service.needsNothing(event)
    }

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        guard let kept = try await erase(among: [event], context: context).first else { return }
        try await service.handle(kept, context: context)
    }

    func handle(batch: [ValidatedEvent], context: HandlerContext) async throws {
        let kept = try await erase(among: batch, context: context)
        guard !kept.isEmpty else { return }
        try await service.handle(batch: kept, context: context)
    }

    /// Applies the erasure requests among `events` and returns the others, less those about an erased patient.
    /// Confirmations pass: they are about erasures (ingest-service counts them).
    private func erase(among events: [ValidatedEvent], context: HandlerContext) async throws -> [ValidatedEvent] {
        // Known when the consumer's claim of the batch named them and the batch applied no erasure of its own; else
        // asked once the batch's requests are applied, as late as can be: an erasure another lane or replica commits
        // meanwhile is seen, which the claim, read before the requests' deletions ran, would miss.
        var erasedBefore = context.erasedAmongBatch
        var others: [ValidatedEvent] = []
        for event in events {
            if event.eventType == .patientErasureRequested {
                try await patientData.apply(event, context: context)
                erasedBefore = nil
            } else if event.eventType.topic != .patients || ownTopics.contains(.patients) {
                others.append(event)
            }
        }
        let erased =
            if let erasedBefore { erasedBefore } else {
                try await ErasedPatients.among(Array(Set(others.compactMap(\.patientID))), context: context)
            }
        guard !erased.isEmpty else { return others }
        let kept = others.filter { event in
            event.eventType == .patientErasureConfirmed || !(event.patientID.map(erased.contains) ?? false)
        }
        context.logger.debug("events about erased patients dropped", metadata: [LogKey.count: "\(others.count - kept.count)"])
        return kept
    }
}
