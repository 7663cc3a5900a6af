import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Crypto
import DiagnosisService
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// A patient's data rights, end to end across the four services against the real database and broker.
/// Export: a copy of everything, gathered from every service with the patient's token, as one JSON document and a FHIR
/// R4 Bundle checked against the rules `FHIRBundleRules` encodes; for the patient alone; gone when it expires.
/// Erasure: a patient with a profile, a consultant, an urgent reading, its alerts, a thread, a reminder, a skin photo and
/// a meal asks for it; every service confirms; no row of any service's tables names the patient any more (a query per
/// table), except the audit trail and the erasure's own bookkeeping, which keep ids; what left on the alerts topic is
/// announced withdrawn; later writes are refused and a late event about the patient is dropped.
@Suite(.serialized, .stoppingStacks) struct DataRightsTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition, DiagnosisService.definition]
    static let schemas = ["ingest", "scoring", "notification", "diagnosis"]
    /// The tables that keep an erased patient's id, and why: the audit trail (who did what, ids only), the erasure's
    /// record in each service, and ingest's request, its confirmations and the mark that refuses later writes.
    static let keepingIDs: Set<String> = [
        "access_audit", "erased_patients", "patient_erasures", "patient_erasure_confirmations", "patient_changes", "schema_migrations",
    ]

    @Test(
        "an export gathers every service's rows about the patient into one JSON document and a valid FHIR R4 Bundle, for the patient alone, until it expires"
    )
    func exportAcrossServices() async throws {
        // The default retention, and no purge while the test runs: the test moves the expiry to the past itself, rather
        // than racing a short retention (and a purge that would turn the expired export's 410 into a 404).
        let exports = ExportSettings(purgeInterval: .seconds(24 * 3600))
        let stack = try await TestStack.start([
            IngestService.definition(sync: .init(), exports: exports), ScoringService.definition, NotificationService.definition,
            DiagnosisService.definition,
        ])
        exports.setSources([ScoringService.name, NotificationService.name, DiagnosisService.name].map(stack.baseURL))
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let patientID = "p-export-\(UUID().uuidString.lowercased().prefix(8))"
        let patient = Caller.identity(Identity(subject: patientID, role: .patient))
        let consultant = Caller.identity(Identity(subject: "dr-export", role: .consultant))

        // A profile, a grant, an urgent reading (assessed, notified), an exam report, a message to the consultant.
        let profile = #"{"name": {"given": ["Ada"], "family": "Lovelace"}, "sex": "female", "birthDate": "1970-01-02", "language": "en"}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/\(patientID)/profile", json: profile, as: patient).status == 201)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/\(patientID)/care-team/dr-export", json: "{}", as: patient).status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get("\(notification)/v1/patients/\(patientID)/alerts", as: consultant).status == 200
        }
        let reading = UUID().uuidString.lowercased()
        #expect(
            try await HTTP.post(
                "\(ingest)/v1/patients/\(patientID)/measurements/blood-pressure",
                json: #"{"measurementId": "\#(reading)", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#, as: patient
            ).status == 201)
        let report =
            #"{"patientId": "\#(patientID)", "reportedAt": "2026-11-22T06:10:00Z", "items": [{"code": "2345-7", "name": "Glucose", "value": 182, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99}]}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/institutions/st-mary/exam-results/E-\(patientID)", json: report).status == 201)
        #expect(
            try await HTTP.send(
                method: "PUT", "\(notification)/v1/patients/\(patientID)/threads/\(UUID())",
                json: #"{"consultantId": "dr-export", "subject": "Readings", "text": "My readings are high."}"#, as: patient
            ).status == 201)
        try await eventually("scoring assessed the reading and notification told the patient") {
            try await HTTP.get("\(notification)/v1/inbox", as: patient).items().count >= 1
        }
        let photoID = UUID()
        let photo = try await PhotoTests.upload(
            "\(ingest)/v1/patients/\(patientID)/photos", photoID, "sharp.jpg", query: "bodySite=upperBack&takenAt=2026-11-20T10:00:00Z",
            as: patient)
        #expect(photo.status == 201, "\(photo.text)")

        // The patient alone asks and reads; a consultant with a grant may not.
        let exportsURL = "\(ingest)/v1/patients/\(patientID)/exports"
        #expect(try await HTTP.send(method: "POST", exportsURL, body: nil, as: consultant).status == 403)
        let asked = try await HTTP.send(method: "POST", exportsURL, body: nil, as: patient)
        #expect(asked.status == 202, "\(asked.text)")
        let exportID = try #require((try asked.json() as? [String: Any])?["exportId"] as? String)
        let exportURL = "\(exportsURL)/\(exportID)"
        #expect(try await HTTP.get(exportURL, as: consultant).status == 403)
        try await eventually("the export was assembled") {
            (try await HTTP.get(exportURL, as: patient).json() as? [String: Any])?["status"] as? String == "ready"
        }

        // The document: every service's part, each with the rows it holds.
        let documentReply = try await HTTP.get("\(exportURL)/document", as: patient)
        #expect(documentReply.status == 200 && documentReply.header("Content-Disposition")?.hasPrefix("attachment") == true)
        let document = try #require(try documentReply.json() as? [String: Any])
        #expect(document["patientId"] as? String == patientID && document["format"] as? String == "caretide.patient-export.v1")
        let services = try #require(document["services"] as? [String: [String: [Any]]])
        #expect(Set(services.keys) == ["ingest-service", "scoring-service", "notification-service", "diagnosis-service"])
        #expect(services["ingest-service"]?["records"]?.count == 2)
        #expect(services["ingest-service"]?["patient_profile_revisions"]?.count == 1)
        #expect(services["ingest-service"]?["care_team_grants"]?.count == 1)
        #expect(services["scoring-service"]?["assessments"]?.isEmpty == false)
        #expect(services["notification-service"]?["care_messages"]?.count == 1)
        #expect(services["notification-service"]?["notifications"]?.isEmpty == false)
        // Each service's access log is the patient's to read too; and each service audited the export's read of its
        // part as the patient's own.
        #expect(services["ingest-service"]?["access_audit"]?.isEmpty == false)
        for schema in ["scoring", "notification", "diagnosis"] {
            let readers = try await stack.withDatabase(schema: schema) { database, logger in
                try await database.client.fetchAll(
                    "SELECT subject FROM access_audit WHERE patient_id = \(patientID) AND operation LIKE 'GET %export-part'", as: String.self,
                    logger: logger)
            }
            #expect(readers == [patientID], "\(schema)")
        }
        #expect(documentReply.text.contains("Lovelace") && !documentReply.text.contains(#""image""#))

        // The Bundle: valid by the R4 rules the test encodes, with a resource of each kind the services hold.
        let bundleReply = try await HTTP.get("\(exportURL)/bundle", as: patient)
        #expect(bundleReply.status == 200 && bundleReply.header("Content-Type") == "application/fhir+json")
        let bundle = try #require(try bundleReply.json() as? [String: Any])
        #expect(FHIRBundleRules.problems(bundle) == [])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        let types = Dictionary(grouping: resources, by: { $0["resourceType"] as? String ?? "" })
        #expect(types["Patient"]?.count == 1)
        #expect(((types["Patient"]?.first?["name"] as? [[String: Any]])?.first?["family"] as? String) == "Lovelace")
        #expect(types["DiagnosticReport"]?.count == 1)
        #expect(types["RiskAssessment"]?.isEmpty == false)
        #expect((types["Communication"]?.count ?? 0) >= 2)
        let pressure = try #require(types["Observation"]?.first { $0["id"] as? String == reading })
        let components = (pressure["component"] as? [[String: Any]] ?? []).compactMap {
            (($0["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String
        }
        #expect(components == ["8480-6", "8462-4"])

        // The archive: both files and the photo as an image file, byte for byte as the photo route serves it, in a ZIP
        // that Python's zipfile reads and checks (CRC-32 of every entry).
        #expect(try await HTTP.get("\(exportURL)/archive", as: consultant).status == 403)
        let archive = try await HTTP.get("\(exportURL)/archive", as: patient)
        #expect(archive.status == 200 && archive.header("Content-Type") == "application/zip")
        let zipFile = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-export-\(exportID).zip")
        try Data(archive.body).write(to: zipFile)
        defer { try? FileManager.default.removeItem(at: zipFile) }
        let listing = try await Subprocess.run(
            "/usr/bin/python3",
            [
                "-c",
                "import hashlib, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; "
                    + "[print(n, hashlib.sha256(z.read(n)).hexdigest()) for n in z.namelist()]",
                zipFile.path,
            ])
        #expect(listing.status == 0, "\(listing.output)")
        let entries = Dictionary(
            uniqueKeysWithValues: listing.output.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ")
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            })
        let photoName = "photos/2026-11-20_upperBack_\(photoID.uuidString.lowercased()).jpg"
        #expect(Set(entries.keys) == ["caretide-export-\(exportID).json", "caretide-export-\(exportID).fhir.json", photoName])
        let served = try await HTTP.get("\(ingest)/v1/patients/\(patientID)/photos/\(photoID)", as: patient)
        #expect(served.status == 200 && entries[photoName] == SHA256.hash(data: Data(served.body)).map { String(format: "%02x", $0) }.joined())
        #expect(
            entries["caretide-export-\(exportID).json"] == SHA256.hash(data: Data(documentReply.body)).map { String(format: "%02x", $0) }.joined())

        // Offered until it expires, then gone.
        try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query(
                "UPDATE patient_exports SET expires_at = now() - interval '1 second' WHERE export_id = \(exportID)::uuid", logger: logger)
        }
        #expect(try await HTTP.get("\(exportURL)/document", as: patient).status == 410)
    }

    @Test("an assembly cut off by a restart cannot resume (it reads with the patient's token, which is not kept): it is marked failed, to ask again")
    func interruptedExport() async throws {
        let stack = try await TestStack.start([
            IngestService.definition(sync: .init(), exports: ExportSettings(purgeInterval: .milliseconds(200)))
        ])
        let ingest = stack.baseURL(IngestService.name)
        let patient = Caller.identity(Identity(subject: "p-export-cut", role: .patient))
        let (stale, fresh) = (UUID(), UUID())
        try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query(
                """
                INSERT INTO patient_exports (export_id, patient_id, status, requested_at)
                VALUES (\(stale), 'p-export-cut', 'assembling', now() - interval '11 minutes'),
                       (\(fresh), 'p-export-cut', 'assembling', now() - interval '2 minutes')
                """, logger: logger)
        }
        func status(_ id: UUID) async throws -> [String: Any]? {
            try await HTTP.get("\(ingest)/v1/patients/p-export-cut/exports/\(id)", as: patient).json() as? [String: Any]
        }
        try await eventually("the interrupted export reads failed") {
            let stale = try await status(stale)
            return stale?["status"] as? String == "failed" && (stale?["failure"] as? String)?.contains("ask again") == true
        }
        // One younger than the bound may still be assembling on another replica.
        #expect(try await status(fresh)?["status"] as? String == "assembling")
    }

    @Test(
        "an erasure removes the patient from every service's tables, each service confirming; the audit keeps ids; what left is withdrawn; later writes are refused"
    )
    func erasureAcrossServices() async throws {
        let stack = try await TestStack.start(Self.services, partitions: 1)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let photos = try KafkaProbe(stack.kafka, topic: Topic.photos.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let patientID = "p-erase-\(UUID().uuidString.lowercased().prefix(8))"
        let patient = Caller.identity(Identity(subject: patientID, role: .patient))
        let consultant = Caller.identity(Identity(subject: "dr-erase", role: .consultant))
        let operatorCaller = Caller.identity(Identity(subject: "op-1", role: .operator))

        // A downstream consumer of patients' alerts: it receives the urgent reading's alert, then its withdrawal.
        let receiver = try await WebhookReceiver.start()
        let hook = try await HTTP.post(
            "\(notification)/v1/webhooks", json: #"{"recipientRole": "patient", "url": "\#(receiver.url("patients"))"}"#, as: operatorCaller)
        #expect(hook.status == 201, "\(hook.text)")
        // What the patient leaves in every service: a profile, a grant, an urgent reading (an assessment, alerts to
        // both), a thread with their consultant and a reminder.
        let profile = #"{"name": {"given": ["Ada"], "family": "Erasmus"}, "sex": "female", "birthDate": "1970-01-02"}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/\(patientID)/profile", json: profile, as: patient).status == 201)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/\(patientID)/care-team/dr-erase", json: "{}", as: patient).status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get("\(notification)/v1/patients/\(patientID)/alerts", as: consultant).status == 200
        }
        // The reading and the reminder are sent with an Idempotency-Key, as an app that retries would: the answers
        // kept for a replay name the patient too, and must go with the rest.
        let readingURL = "\(ingest)/v1/patients/\(patientID)/measurements/blood-pressure"
        let readingBody = Data(#"{"measurementId": "\#(UUID())", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#.utf8)
        let reminderURL = "\(notification)/v1/patients/\(patientID)/reminders"
        let reminderBody = Data(
            #"{"topic": "skinCheck", "repeats": "monthly", "startsOn": "2027-01-04", "at": "09:00", "timeZone": "Europe/Lisbon"}"#.utf8)
        let keys = ["Idempotency-Key": "erase-\(UUID())"]
        let reading = try await HTTP.send(method: "POST", readingURL, body: readingBody, as: patient, headers: keys)
        #expect(reading.status == 201, "\(reading.text)")
        let raised = try await alerts.receive(2).compactMap { try EventCodec().decode($0.value).payload(as: AlertRaised.self) }
        #expect(raised.count == 2)
        let thread = try await HTTP.send(
            method: "PUT", "\(notification)/v1/patients/\(patientID)/threads/\(UUID())",
            json: #"{"consultantId": "dr-erase", "subject": "Readings", "text": "My readings are high."}"#, as: patient)
        #expect(thread.status == 201, "\(thread.text)")
        let reminder = try await HTTP.send(method: "POST", reminderURL, body: reminderBody, as: patient, headers: keys)
        #expect(reminder.status == 201, "\(reminder.text)")
        #expect(
            try await HTTP.send(method: "POST", reminderURL, body: reminderBody, as: patient, headers: keys).header("Idempotent-Replayed") == "true")
        // A skin photo (ingest keeps its bytes, scoring the announcement) and a meal (ingest's record, scoring's day).
        let photoID = UUID()
        let photo = try await PhotoTests.upload(
            "\(ingest)/v1/patients/\(patientID)/photos", photoID, "sharp.jpg", query: "bodySite=upperBack&takenAt=2026-11-20T10:00:00Z",
            as: patient)
        #expect(photo.status == 201, "\(photo.text)")
        try await FoodFixture.importFoods(stack)
        let meal = try await HTTP.post(
            "\(ingest)/v1/patients/\(patientID)/meals", json: FoodFixture.meal(food: "01001", grams: 10, at: "2026-11-20T12:00:00Z"), as: patient)
        #expect(meal.status == 201, "\(meal.text)")
        let scoring = stack.baseURL(ScoringService.name)
        try await eventually("scoring analysed the meal's day") {
            try await HTTP.get("\(scoring)/v1/patients/\(patientID)/nutrition/days/2026-11-20", as: patient).status == 200
        }
        let named = try await Self.tablesNaming(patientID, stack: stack)
        #expect(named.count >= 8, "\(named)")
        #expect(Set(["ingest.lesion_photos", "scoring.meal_entries", "scoring.nutrition_days"]).isSubset(of: named), "\(named)")

        // Who may ask: the patient or an operator, never a consultant; no erasure yet reads as 404.
        let erasure = "\(ingest)/v1/patients/\(patientID)/erasure"
        #expect(try await HTTP.get(erasure, as: patient).status == 404)
        #expect(try await HTTP.send(method: "POST", erasure, body: nil, as: consultant).status == 403)
        #expect(try await HTTP.get(erasure, as: consultant).status == 403)
        let asked = try await HTTP.send(method: "POST", erasure, body: nil, as: patient)
        #expect(asked.status == 202 && asked.header("Location") == "/v1/patients/\(patientID)/erasure", "\(asked.text)")
        let request = try #require(asked.json() as? [String: Any])
        #expect(request["status"] as? String == "in-progress" && request["requestedBy"] as? String == "patient")
        let again = try await HTTP.send(method: "POST", erasure, body: nil, as: operatorCaller)
        let repeated = try again.json() as? [String: Any]
        #expect(again.status == 200 && repeated?["erasureId"] as? String == request["erasureId"] as? String)

        // Every service confirms; the operator reads the progress as the patient does.
        try await eventually("every service confirmed the erasure") {
            (try await HTTP.get(erasure, as: operatorCaller).json() as? [String: Any])?["status"] as? String == "completed"
        }
        let progress = try #require(try await HTTP.get(erasure, as: patient).json() as? [String: Any])
        let services = try #require(progress["services"] as? [[String: Any]])
        #expect(
            Set(services.compactMap { $0["service"] as? String })
                == ["ingest-service", "scoring-service", "notification-service", "diagnosis-service"])
        #expect(services.allSatisfy { $0["status"] as? String == "erased" && $0["erasedAt"] is String })

        // Nothing of the patient in any table of any service but those that keep ids (once the outboxes are sent).
        try await eventually("no table names the patient") { try await Self.tablesNaming(patientID, stack: stack).isEmpty }
        // The audit keeps the request: ids, the operation, the outcome.
        let audited = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll(
                "SELECT operation, status FROM access_audit WHERE patient_id = \(patientID) AND operation LIKE 'POST %erasure'",
                as: (String, Int).self,
                logger: logger)
        }
        #expect(audited.contains { $0.1 == 202 })

        // What left on the alerts topic is announced withdrawn, to each recipient.
        var withdrawn: [AlertWithdrawn] = []
        try await eventually("the alerts that left are announced withdrawn") {
            withdrawn += try await alerts.drain(for: .seconds(1)).compactMap { try EventCodec().decode($0.value).payload(as: AlertWithdrawn.self) }
            return Set(raised.map(\.alertID)).isSubset(of: withdrawn.map(\.alertID))
        }
        #expect(withdrawn.allSatisfy { $0.reason == .patientErased })
        // Outside classifiers, told of the photo, are told it is deleted.
        var photoEvents: [ValidatedEvent] = []
        try await eventually("the photo announced deleted") {
            photoEvents += try await photos.drain(for: .seconds(1)).map { try EventCodec().decode($0.value) }
            return photoEvents.contains { $0.payload(as: LesionPhotoDeleted.self)?.photoID == photoID }
        }
        // The webhook got the withdrawal too; once delivered, its delivery (which names the patient) is forgotten.
        try await eventually("the webhook received the withdrawal") {
            receiver.received("patients").contains { String(decoding: $0.body, as: UTF8.self).contains("patientErased") }
        }

        // The id takes no new data: writes are refused with 410, and the profile is gone.
        let late = try await HTTP.post(
            "\(ingest)/v1/patients/\(patientID)/measurements/blood-pressure",
            json: #"{"measurementId": "\#(UUID())", "systolic": 120, "diastolic": 80, "takenAt": "2026-11-21T08:00:00Z"}"#, as: patient)
        #expect(late.status == 410, "\(late.text)")
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/\(patientID)/profile", json: profile, as: patient).status == 410)
        #expect(try await HTTP.get("\(ingest)/v1/patients/\(patientID)/profile", as: patient).status == 404)
        // In every service: notification's writes (a reminder, a message) and a new export are refused alike.
        let lateReminder = try await HTTP.post(
            "\(notification)/v1/patients/\(patientID)/reminders",
            json: #"{"topic": "skinCheck", "repeats": "monthly", "startsOn": "2027-01-04", "at": "09:00", "timeZone": "Europe/Lisbon"}"#,
            as: patient)
        #expect(lateReminder.status == 410, "\(lateReminder.text)")
        // The same requests with the same keys are not replayed as if they still stood: the kept answers are gone.
        let replayedReading = try await HTTP.send(method: "POST", readingURL, body: readingBody, as: patient, headers: keys)
        #expect(replayedReading.status == 410 && replayedReading.header("Idempotent-Replayed") == nil, "\(replayedReading.text)")
        let replayedReminder = try await HTTP.send(method: "POST", reminderURL, body: reminderBody, as: patient, headers: keys)
        #expect(replayedReminder.status == 410 && replayedReminder.header("Idempotent-Replayed") == nil, "\(replayedReminder.text)")
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/\(patientID)/exports", body: nil, as: patient).status == 410)
        // Their refusals are audited, and the audit events leave through the outbox: then nothing names the patient.
        try await eventually("no table names the patient after the refused writes") { try await Self.tablesNaming(patientID, stack: stack).isEmpty }

        // An event about the patient still in flight when the erasure ran is dropped: one about another patient,
        // sent after it on the same partition, is assessed; the erased patient's is not.
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        func lateReading(_ patient: String) -> OutgoingMessage {
            OutgoingMessage(
                topic: Topic.measurements.name, key: patient,
                value: Array(
                    #"{"eventId": "\#(UUID())", "eventType": "blood-pressure.recorded", "schemaVersion": 1, "occurredAt": "2026-11-22T08:00:00Z", "producer": "test", "patientId": "\#(patient)", "payload": {"measurementId": "\#(UUID())", "revision": 1, "systolic": 150, "diastolic": 95, "takenAt": "2026-11-22T07:00:00Z", "source": "patient"}}"#
                        .utf8))
        }
        try await producer.send([lateReading(patientID), lateReading("p-erase-control")])
        let count: @Sendable (String) async throws -> Int = { patient in
            try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll(
                    "SELECT count(*)::int FROM assessments WHERE patient_id = \(patient)", as: Int.self, logger: logger
                ).first ?? 0
            }
        }
        try await eventually("the control reading was assessed") { try await count("p-erase-control") == 1 }
        #expect(try await count(patientID) == 0)
        await producer.shutdown()
        await alerts.close()
        await photos.close()
        try await receiver.stop()
    }

    /// "schema.table" for every table of every service that has a row naming `patientID` in a text, JSON, array or
    /// byte column, other than those that keep ids by design.
    static func tablesNaming(_ patientID: String, stack: TestStack) async throws -> [String] {
        var found: [String] = []
        for schema in schemas {
            found += try await stack.withDatabase(schema: schema) { database, logger in
                let columns = try await database.client.fetchAll(
                    """
                    SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
                    JOIN information_schema.tables t USING (table_schema, table_name)
                    WHERE c.table_schema = \(schema) AND t.table_type = 'BASE TABLE'
                      AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'bytea')
                    ORDER BY 1, 2
                    """, as: (String, String, String).self, logger: logger)
                var byTable: [String: [String]] = [:]
                for (table, column, type) in columns where !keepingIDs.contains(table) {
                    let quoted = "\"\(column)\""
                    byTable[table, default: []].append(
                        type == "bytea"
                            ? "position(convert_to($1, 'UTF8') in \(quoted)) > 0" : "strpos(\(quoted)::text, $1) > 0")
                }
                var naming: [String] = []
                for (table, conditions) in byTable.sorted(by: { $0.key < $1.key }) {
                    var bindings = PostgresBindings(capacity: 1)
                    bindings.append(patientID)
                    let sql = "SELECT count(*)::int FROM \"\(schema)\".\"\(table)\" WHERE \(conditions.joined(separator: " OR "))"
                    let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                    for try await count in rows.decode(Int.self) where count > 0 { naming.append("\(schema).\(table)") }
                }
                return naming
            }
        }
        return found
    }
}
