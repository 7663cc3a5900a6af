import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import DiagnosisService
import Foundation
import PostgresNIO
import Testing

/// Pipelines talk to diagnosis-service over Kafka: requests on `caretide.diagnosis-requests`, answers correlated by
/// request id on `caretide.diagnosis-results`, ontology updates by event.
@Suite(.serialized, .stoppingStacks) struct DiagnosisKafkaTests {
    static func request(_ payload: some EventPayload, patientID: String? = nil) throws -> OutgoingMessage {
        let envelope = EventEnvelope(producer: "pipeline", patientID: patientID, traceID: "trace-dx", payload: payload)
        return OutgoingMessage(topic: Topic.diagnosisRequests.name, key: patientID, value: try EventCodec().encode(envelope))
    }

    @Test("a consultant asks for an update check; the answer compares the loaded and the staged release; an operator's approval imports it")
    func consultantAsksOperatorApproves() async throws {
        let stack = try await TestStack.start(
            [
                DiagnosisService.definition(
                    importOptions: HPOFixture.importOptions, dataDirectory: HPOFixture.directory.path)
            ], partitions: 1)
        let base = stack.baseURL(DiagnosisService.name) + "/v1/ontology-update-requests"
        let consultant = Caller.identity(Identity(subject: "dr-ask", role: .consultant))
        let colleague = Caller.identity(Identity(subject: "dr-other", role: .consultant))
        let operatorCaller = Caller.identity(Identity(subject: "ops-1", role: .operator))

        // Nothing loaded, the fixture staged: an update is available.
        let asked = try await HTTP.post(base, json: "", as: consultant)
        #expect(asked.status == 201)
        let request = try #require(try asked.json() as? [String: Any])
        let id = try #require(request["requestId"] as? String)
        #expect(request["status"] as? String == "pending" && request["requestedBy"] as? String == "dr-ask")
        #expect(request["loaded"] == nil && request["updateAvailable"] as? Bool == true)
        let staged = try #require(request["newestKnown"] as? [String: Any])
        #expect(staged["ontologyVersion"] as? String == "hp/releases/2025-01-16" && staged["annotationVersion"] as? String == "2025-01-16")

        // Only the asker and operators see it; only operators decide; patients and services do neither.
        #expect(try await HTTP.get(base + "/" + id, as: colleague).status == 404)
        #expect(try await HTTP.get(base, as: colleague).items().isEmpty)
        #expect(try await HTTP.get(base, as: operatorCaller).items().count == 1)
        #expect(try await HTTP.post(base + "/\(id)/approval", json: "", as: consultant).status == 403)
        #expect(try await HTTP.post(base, json: "", as: .identity(Identity(subject: "p-1", role: .patient))).status == 403)

        // The approval imports the staged files through the update event; the request then names the release.
        let approved = try await HTTP.post(base + "/\(id)/approval", json: "", as: operatorCaller)
        let approvedBody = try approved.json() as? [String: Any]
        #expect(approved.status == 200 && approvedBody?["status"] as? String == "approved")
        var imported: [String: Any] = [:]
        try await eventually("the approved update imported") {
            imported = try await HTTP.get(base + "/" + id, as: consultant).json() as? [String: Any] ?? [:]
            return imported["status"] as? String == "imported"
        }
        let releaseID = try #require(imported["importedReleaseId"] as? Int)
        #expect(imported["decidedBy"] as? String == "ops-1" && imported["updateId"] as? String == "update-request-\(id)")
        try await HPOFixture.waitUntilServing(stack, release: releaseID)
        #expect(try await HTTP.post(base + "/\(id)/approval", json: "", as: operatorCaller).status == 409)

        // Asked again with that release loaded: nothing newer is known, so approving is refused and the operator refuses.
        let again = try #require(try await HTTP.post(base, json: "", as: consultant).json() as? [String: Any])
        #expect(again["updateAvailable"] as? Bool == false)
        #expect((again["loaded"] as? [String: Any])?["releaseId"] as? Int == releaseID)
        let second = try #require(again["requestId"] as? String)
        #expect(try await HTTP.post(base + "/\(second)/approval", json: "", as: operatorCaller).status == 409)
        let refused = try await HTTP.post(base + "/\(second)/refusal", json: "", as: operatorCaller)
        let refusedBody = try refused.json() as? [String: Any]
        #expect(refused.status == 200 && refusedBody?["status"] as? String == "refused")
        #expect(try await HTTP.post(base + "/\(second)/refusal", json: "", as: operatorCaller).status == 409)
        #expect(try await HTTP.get(base, as: consultant).items().map { $0["status"] as? String } == ["refused", "imported"])
        try await stack.shutdown()
    }

    @Test("an update event imports a release; requests are answered once per request id, refused while nothing can rank")
    func requestsAndUpdates() async throws {
        let stack = try await TestStack.start(
            [
                DiagnosisService.definition(
                    importOptions: HPOFixture.importOptions, dataDirectory: HPOFixture.directory.path)
            ], partitions: 1)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("pipeline"))
        let results = try KafkaProbe(stack.kafka, topic: Topic.diagnosisResults.name)
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)

        // Before any import: refused, saying why.
        try await producer.send(Self.request(DiagnosisRequested(requestID: "early", phenotypes: ["HP:0001250"]), patientID: "patient-3"))
        let early = try await results.receive(1)[0]
        #expect(early.key == "patient-3")
        let refused = try #require(try EventCodec().decode(early.value).payload(as: DiagnosisRefused.self))
        #expect(refused.requestID == "early" && refused.reason == .ontologyNotLoaded)

        // An update naming a missing file is dead-lettered with the reason; a good one imports and is announced.
        try await producer.send(
            Self.request(
                OntologyUpdateRequested(
                    updateID: "missing", kind: .full, ontologyFile: "/nonexistent/hp.obo", annotationFile: "/nonexistent/phenotype.hpoa")))
        let dead = try await deadLetters.receive(1)[0]
        #expect(
            dead.headers[EventHeader.deadLetterReason] == "the ontology file is not a regular file of at most 512 MiB under the HPO data directory")
        let update = OntologyUpdateRequested(
            updateID: "fixture-1", kind: .full, ontologyFile: HPOFixture.ontologyFile,
            annotationFile: HPOFixture.annotationFile)
        try await producer.send(Self.request(update))
        let imported = try #require(try EventCodec().decode(try await results.receive(1)[0].value).payload(as: OntologyReleaseImported.self))
        #expect(imported.updateID == "fixture-1" && imported.diseaseCount == 12 && imported.release.kind == .full)
        #expect(imported.recallTopTen == 1)
        try await HPOFixture.waitUntilServing(stack, release: imported.release.releaseID)

        // A redelivered update (same update id) does not import twice.
        try await producer.send(Self.request(update))

        // A request is answered with its request id; the same request id sent again is not answered again.
        let request = DiagnosisRequested(
            requestID: "req-42", phenotypes: ["HP:0001166", "HP:0001083"], excluded: ["HP:0001250"], maxResults: 3)
        try await producer.send(Self.request(request, patientID: "patient-3"))
        try await producer.send(Self.request(request, patientID: "patient-3"))
        try await producer.send(Self.request(DiagnosisRequested(requestID: "req-43", phenotypes: ["HP:9999999"]), patientID: "patient-3"))
        let answers = try await results.receive(2).map { try EventCodec().decode($0.value) }
        let ranked = try #require(answers[0].payload(as: DiagnosisRanked.self))
        #expect(ranked.requestID == "req-42" && ranked.results.count == 3 && ranked.release == imported.release)
        #expect(ranked.excludedTerms.map(\.id) == ["HP:0001250"])
        #expect(answers[0].traceID == "trace-dx" && answers[0].patientID == "patient-3")
        let unusable = try #require(answers[1].payload(as: DiagnosisRefused.self))
        #expect(unusable.requestID == "req-43" && unusable.reason == .noUsableQueryTerms)
        #expect(try await results.drain(for: .seconds(1)).isEmpty)

        let releases = try await stack.withDatabase(schema: "diagnosis") { database, logger in
            try await database.client.fetchAll("SELECT update_id FROM releases", as: String?.self, logger: logger)
        }
        #expect(releases == ["fixture-1"])
        await results.close()
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }

    @Test("an update event reads only regular files under HPO_DATA_DIR, and a bogus release is refused before storing")
    func updatesReadOnlyTheDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hpo-data-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in ["hp.obo", "phenotype.hpoa"] {
            try FileManager.default.copyItem(
                at: HPOFixture.directory.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("escape.obo").path, withDestinationPath: "/etc/passwd")
        try Data("format-version: 1.2\nontology: hp\n\n[Term]\nid: HP:0000001\nname: All\n".utf8)
            .write(to: directory.appendingPathComponent("bogus.obo"))

        let stack = try await TestStack.start(
            [DiagnosisService.definition(importOptions: HPOFixture.importOptions, dataDirectory: directory.path)], partitions: 1)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("pipeline"))
        let results = try KafkaProbe(stack.kafka, topic: Topic.diagnosisResults.name)
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let refusedNames = ["/etc/shadow", "/proc/self/environ", "../../etc/passwd", "escape.obo", "/no/such/dir/hp.obo", directory.path]
        for (index, name) in refusedNames.enumerated() {
            try await producer.send(
                Self.request(OntologyUpdateRequested(updateID: "bad-\(index)", kind: .minimum, ontologyFile: name, annotationFile: nil)))
        }
        try await producer.send(
            Self.request(OntologyUpdateRequested(updateID: "bogus", kind: .minimum, ontologyFile: "bogus.obo", annotationFile: nil)))
        let reasons = try await deadLetters.receive(refusedNames.count + 1).map { $0.headers[EventHeader.deadLetterReason] ?? "" }
        // The same words whether the file exists or not: no event can probe the file system.
        #expect(
            reasons.dropLast()
                == refusedNames.map { _ in
                    "the ontology file is not a regular file of at most 512 MiB under the HPO data directory"
                })
        #expect(reasons.last == "the release is not usable: it has no HP:0000118 (Phenotypic abnormality)")

        try await producer.send(
            Self.request(
                OntologyUpdateRequested(
                    updateID: "good", kind: .full, ontologyFile: "hp.obo", annotationFile: directory.appendingPathComponent("phenotype.hpoa").path)))
        let imported = try #require(try EventCodec().decode(try await results.receive(1)[0].value).payload(as: OntologyReleaseImported.self))
        #expect(imported.updateID == "good")
        let releases = try await stack.withDatabase(schema: "diagnosis") { database, logger in
            try await database.client.fetchAll("SELECT update_id FROM releases", as: String?.self, logger: logger)
        }
        #expect(releases == ["good"])
        await results.close()
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }

    @Test("without HPO_DATA_DIR, imports by event are off and say how to turn them on")
    func updatesNeedADataDirectory() async throws {
        let stack = try await TestStack.start(
            [DiagnosisService.definition(importOptions: HPOFixture.importOptions, dataDirectory: nil)], partitions: 1)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("pipeline"))
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        try await producer.send(
            Self.request(
                OntologyUpdateRequested(
                    updateID: "any", kind: .minimum, ontologyFile: HPOFixture.ontologyFile, annotationFile: nil)))
        let reason = try await deadLetters.receive(1)[0].headers[EventHeader.deadLetterReason]
        #expect(reason == "imports by event are off: set HPO_DATA_DIR to the directory holding the release files")
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }
}
