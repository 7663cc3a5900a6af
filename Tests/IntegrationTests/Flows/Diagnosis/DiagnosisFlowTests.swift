import CaretideIdentity
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import DiagnosisService
import Foundation
import PhenotypeRanking
import PostgresNIO
import Testing

/// diagnosis-service over HTTP with a real PostgreSQL: releases imported from the committed HPO fixture (12 diseases,
/// 59 terms of the 2025-01-16 release), served without downtime, searched, ranked, and saved per doctor.
@Suite(.serialized, .stoppingStacks) struct DiagnosisFlowTests {
    struct ReleaseListing: Decodable {
        let serving: OntologyReleaseReference?
        let releases: [Summary]
        let message: String?

        struct Summary: Decodable {
            let releaseId: Int
            let kind: String
            let termCount: Int
            let diseaseCount: Int
            let accuracyReport: AccuracyReport?
        }
    }

    struct SearchAnswer: Decodable {
        let release: OntologyReleaseReference?
        let results: [Hit]
        let message: String?

        struct Hit: Decodable {
            let id: String
            let name: String
            let match: String
        }
    }

    struct Problem: Decodable {
        let error: String
        let violations: [Violation]

        struct Violation: Decodable {
            let pointer: String
            let message: String
        }
    }

    /// The items of every page of a list, following `nextCursor` from `url` (which names its `limit`).
    static func everyPage(_ url: String) async throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var cursor: String?
        repeat {
            let page = try #require(try await HTTP.get(url + (cursor.map { "&cursor=\($0)" } ?? "")).json() as? [String: Any])
            items += page["items"] as? [[String: Any]] ?? []
            cursor = page["nextCursor"] as? String
        } while cursor != nil
        return items
    }

    @Test("with no ontology: searches answer an empty list saying an update is needed, ranking a 503, an empty query a 400")
    func nothingLoaded() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        let base = stack.baseURL(DiagnosisService.name)

        let phenotypes = try await HTTP.get(base + "/v1/phenotypes?q=seizure").decoded(SearchAnswer.self)
        #expect(phenotypes.results.isEmpty && phenotypes.release == nil)
        #expect(phenotypes.message?.contains("update is needed") == true)
        let diseases = try await HTTP.get(base + "/v1/diseases?q=marfan").decoded(SearchAnswer.self)
        #expect(diseases.results.isEmpty && diseases.message?.contains("update is needed") == true)
        // The Features list, without a search word: empty, and saying why.
        let features = try #require(try await HTTP.get(base + "/v1/phenotypes").json() as? [String: Any])
        #expect((features["items"] as? [Any])?.isEmpty == true && (features["message"] as? String)?.contains("update is needed") == true)

        let ranking = try await HTTP.post(base + "/v1/rankings", json: #"{"phenotypes": ["HP:0001250"]}"#)
        #expect(ranking.status == 503)
        #expect(try ranking.decoded(Problem.self).error.contains("full update"))

        let empty = try await HTTP.post(base + "/v1/rankings", json: #"{"phenotypes": [], "excluded": ["seizure"]}"#)
        #expect(empty.status == 400)
        #expect(try empty.decoded(Problem.self).violations.map(\.pointer) == ["/excluded/0", "/phenotypes"])

        let badSearch = try await HTTP.get(base + "/v1/phenotypes?q=&limit=0")
        #expect(badSearch.status == 400)
        #expect(try badSearch.decoded(Problem.self).violations.map(\.pointer) == ["/limit", "/q"])
        // Without q it is the list, whose page size is 1 to 500.
        let badList = try await HTTP.get(base + "/v1/phenotypes?limit=0")
        #expect(badList.status == 400)
        #expect(try badList.decoded(Problem.self).violations.map(\.pointer) == ["/limit"])
        try await stack.shutdown()
    }

    @Test("a full import serves search, browsing and rankings identical to the ranking module on the same files")
    func fullImportServes() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        let base = stack.baseURL(DiagnosisService.name)
        let report = try await HPOFixture.importRelease(stack)
        #expect(report.termCount == 59 && report.diseaseCount == 12 && report.annotationCount > 60)
        try await HPOFixture.waitUntilServing(stack, release: report.release.releaseID)

        // Search: by name, synonym-free word prefix, id, and diseases by bare accession.
        let seizures = try await HTTP.get(base + "/v1/phenotypes?q=seizure&limit=3").decoded(SearchAnswer.self)
        #expect(seizures.results.first?.id == "HP:0001250" && seizures.results.first?.match == "exactName")
        #expect(seizures.results.count == 3)
        let byID = try await HTTP.get(base + "/v1/phenotypes?q=HP:0001166").decoded(SearchAnswer.self)
        #expect(byID.results.first?.name == "Arachnodactyly" && byID.results.first?.match == "exactId")
        let marfan = try await HTTP.get(base + "/v1/diseases?q=154700").decoded(SearchAnswer.self)
        #expect(marfan.results.map(\.id) == ["OMIM:154700"])
        // Without a search word: every disease by name, a page at a time, each once.
        let listed = try await Self.everyPage(base + "/v1/diseases?limit=5")
        let names = listed.compactMap { $0["name"] as? String }
        #expect(listed.count == 12 && Set(listed.compactMap { $0["id"] as? String }).count == 12)
        #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
        #expect(try await HTTP.get(base + "/v1/diseases?cursor=bogus").status == 400)
        // The Features list: every phenotype (below Phenotypic abnormality) by name, a page at a time, each once.
        let features = try await Self.everyPage(base + "/v1/phenotypes?limit=200")
        let ontology = try Self.referenceRanker().knowledgeBase.ontology
        let phenotypeCount = ontology.descendants(of: try #require(ontology.resolve("HP:0000118").term)).count - 1  // the root itself
        #expect(features.count == phenotypeCount && Set(features.compactMap { $0["id"] as? String }).count == phenotypeCount)
        let featureNames = features.compactMap { $0["name"] as? String }
        #expect(featureNames == featureNames.sorted { $0.lowercased() < $1.lowercased() })
        #expect(features.contains { $0["id"] as? String == "HP:0001166" } && !features.contains { $0["id"] as? String == "HP:0000118" })
        #expect(try await HTTP.get(base + "/v1/phenotypes?cursor=bogus").status == 400)

        // Browsing: a term's parents and children; an obsolete id answers the term replacing it.
        let seizure = try await HTTP.get(base + "/v1/phenotypes/HP:0001250").json() as! [String: Any]
        #expect((seizure["children"] as! [[String: Any]]).contains { $0["id"] as? String == "HP:0007359" })
        #expect((seizure["parents"] as! [[String: Any]]).map { $0["id"] as! String } == ["HP:0012638"])
        let obsolete = try await HTTP.get(base + "/v1/phenotypes/HP:0040168").json() as! [String: Any]
        #expect(obsolete["requestedId"] as? String == "HP:0040168" && obsolete["id"] as? String != "HP:0040168")
        #expect(try await HTTP.get(base + "/v1/phenotypes/HP:9999999").status == 404)

        // A disease's phenotypes, most informative first: a query picked from a known disease.
        let marfanTerms = try await HTTP.get(base + "/v1/diseases/OMIM:154700/phenotypes").json() as! [String: Any]
        let terms = (marfanTerms["phenotypes"] as! [[String: Any]]).map { $0["id"] as! String }
        #expect(Set(terms) == ["HP:0000098", "HP:0001166", "HP:0002650", "HP:0001083", "HP:0000545"])

        // Ranking over HTTP equals the ranking module on the same files and null-distribution options: the release
        // survives its round trip through PostgreSQL unchanged.
        let reply = try await HTTP.post(
            base + "/v1/rankings", json: #"{"phenotypes": ["HP:0001166", "HP:0001083", "HP:9999999", "HP:0001166"], "suggestPhenotypes": true}"#)
        #expect(reply.status == 200)
        #expect(SchemaCatalog.bundled.payloads[.diagnosisRanked]!.validate(try CaretideJSON.parse(reply.body)) == [])
        let ranked = try reply.decoded(DiagnosisRanked.self)
        // By likelihood ratio and OMIM alone by default (OMIM and Orphanet list many diseases twice); every source when asked.
        let expected = try Self.referenceRanker().rank(
            terms: ["HP:0001166", "HP:0001083", "HP:9999999", "HP:0001166"], options: RankingOptions(method: .likelihoodRatio, sources: ["OMIM"]))
        #expect(ranked.method == .likelihoodRatio)
        #expect(ranked.results.map(\.diseaseID) == expected.results.map(\.diseaseID))
        #expect(ranked.results.allSatisfy { $0.diseaseID.hasPrefix("OMIM:") })
        let everySource = try await HTTP.post(
            base + "/v1/rankings", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"], "sources": ["OMIM", "ORPHA", "DECIPHER"]}"#)
        let allExpected = try Self.referenceRanker().rank(terms: ["HP:0001166", "HP:0001083"], options: RankingOptions(method: .likelihoodRatio))
        #expect(try everySource.decoded(DiagnosisRanked.self).results.map(\.diseaseID) == allExpected.results.map(\.diseaseID))
        #expect(allExpected.results.contains { $0.diseaseID.hasPrefix("ORPHA:") })
        #expect(ranked.results.map(\.pValue) == expected.results.map(\.pValue))
        #expect(ranked.results.map(\.score) == expected.results.map(\.score))
        #expect(ranked.release == report.release)
        #expect(ranked.warnings.map(\.code) == ["unknownTerm", "duplicateTerm"])
        #expect(ranked.results.allSatisfy { $0.adjustedPValue >= $0.pValue && $0.pValue > 0 && $0.pValue <= 1 })
        #expect(ranked.results.first.map { ["OMIM:154700", "OMIM:236200"].contains($0.diseaseID) } == true)
        let explanation = try #require(ranked.results.first?.matches)
        #expect(Set(explanation.map(\.queryTerm.id)) == ["HP:0001166", "HP:0001083"])
        let ratio = try #require(ranked.results.first?.likelihoodRatio)
        #expect(ratio.findings.map(\.term.id) == ["HP:0001166", "HP:0001083"] && ratio.log10Ratio > 0)
        let posteriors = ranked.results.compactMap { $0.likelihoodRatio?.posteriorProbability }
        #expect(posteriors.count == ranked.results.count && posteriors == posteriors.sorted(by: >))
        // The Phenomizer's order, asked by name.
        let bySimilarity = try await HTTP.post(base + "/v1/rankings", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"], "method": "similarity"}"#)
        let similarityExpected = try Self.referenceRanker().rank(terms: ["HP:0001166", "HP:0001083"], options: RankingOptions(sources: ["OMIM"]))
        let similarityRanked = try bySimilarity.decoded(DiagnosisRanked.self)
        #expect(similarityRanked.method == .similarity && similarityRanked.results.allSatisfy { $0.likelihoodRatio == nil })
        #expect(similarityRanked.results.map(\.diseaseID) == similarityExpected.results.map(\.diseaseID))
        #expect(explanation.map(\.informationContent) == explanation.map(\.informationContent).sorted(by: >))
        // The same ranking to file: CSV with a row per disease and query phenotype, and a page to print.
        let csv = try await HTTP.post(base + "/v1/rankings.csv", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"]}"#)
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(csv.header("Content-Disposition") == "attachment; filename=\"ranking.csv\"" && csv.header("Cache-Control") == "no-store")
        let rows = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 1 + 2 * ranked.results.count && rows[1].hasPrefix("1,\(ranked.results[0].diseaseID),"))
        let page = try await HTTP.post(base + "/v1/rankings.html", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"]}"#)
        #expect(page.status == 200 && page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
        #expect(page.text.contains("Differential diagnosis ranking") && page.text.contains("Arachnodactyly (HP:0001166)"))
        #expect(try await HTTP.post(base + "/v1/rankings.csv", json: #"{"phenotypes": []}"#).status == 400)
        #expect(ranked.suggestions?.isEmpty == false)

        // Every query term unusable: a 422 naming the phenotypes.
        let unusable = try await HTTP.post(base + "/v1/rankings", json: #"{"phenotypes": ["HP:9999999"]}"#)
        #expect(unusable.status == 422)
        #expect(try unusable.decoded(Problem.self).violations.map(\.pointer) == ["/phenotypes"])

        // The accuracy report of the release.
        let listing = try await HTTP.get(base + "/v1/releases").decoded(ReleaseListing.self)
        let scenarios = try #require(listing.releases.first?.accuracyReport?.scenarios)
        #expect(scenarios.map(\.name) == ["exact", "imprecise", "noisy", "impreciseWithNoise"])
        #expect(scenarios.allSatisfy { $0.evaluated == 12 && $0.inTopTen >= ($0.inTopThree ?? 2) && ($0.inTopThree ?? -1) >= $0.rankedFirst })
        try await stack.shutdown()
    }

    static func referenceRanker() throws -> PhenotypeRanker {
        let kb = try PhenotypeKnowledgeBase(
            obo: try Data(contentsOf: URL(fileURLWithPath: HPOFixture.ontologyFile)),
            hpoa: try Data(contentsOf: URL(fileURLWithPath: HPOFixture.annotationFile)))
        let options = HPOFixture.importOptions
        let nulls = try ScoringMode.allCases.map { scoring in
            try NullDistribution.build(
                for: kb,
                options: NullDistributionOptions(
                    scoring: scoring,
                    sampleCount: scoring == .asymmetric ? options.nullSampleCount : options.symmetricNullSampleCount,
                    maxQuerySize: options.nullMaxQuerySize, binCount: options.nullBinCount))
        }
        return try PhenotypeRanker(knowledgeBase: kb, nullDistributions: nulls)
    }

    @Test("the serving release downloads as one tar archive that tar and sha256sum read: files, manifest, licence, checksums")
    func offlineBundle() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        let base = stack.baseURL(DiagnosisService.name)
        #expect(try await HTTP.get(base + "/v1/releases/1/bundle").status == 404)
        let report = try await HPOFixture.importRelease(stack)
        let releaseID = report.release.releaseID
        try await HPOFixture.waitUntilServing(stack, release: releaseID)
        let url = base + "/v1/releases/\(releaseID)/bundle"

        let reply = try await HTTP.get(url)
        #expect(reply.status == 200 && reply.header("Content-Type") == "application/x-tar")
        #expect(reply.header("Content-Disposition") == "attachment; filename=\"caretide-hpo-release-\(releaseID)-2025-01-16.tar\"")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = folder.appendingPathComponent("bundle.tar").path
        try reply.body.write(to: URL(fileURLWithPath: archive))

        // The whole archive's checksum, as sha256sum computes it, is the one the headers give.
        let sum = try await Subprocess.run("/usr/bin/sha256sum", [archive])
        let hex = try #require(sum.output.split(separator: " ").first.map(String.init))
        #expect(reply.header("ETag") == "\"\(hex)\"")
        let bytes = stride(from: 0, to: hex.count, by: 2).map { i -> UInt8 in
            UInt8(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 2)], radix: 16)!
        }
        #expect(reply.header("Repr-Digest") == "sha-256=:\(Data(bytes).base64EncodedString()):")

        // GNU tar lists and extracts it.
        let listing = try await Subprocess.run("/usr/bin/tar", ["-tf", archive])
        #expect(listing.status == 0)
        let names = listing.output.split(separator: "\n").map(String.init)
        #expect(
            names == [
                "LICENSE-HPO.txt", "terms.tsv", "mappings.tsv", "diseases.tsv", "annotations.tsv", "null-asymmetric.prnl", "null-symmetric.prnl",
                "MANIFEST.json",
            ])
        #expect(try await Subprocess.run("/usr/bin/tar", ["-xf", archive, "-C", folder.path]).status == 0)
        func file(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

        // The manifest names each file with its size and checksum, the release, the method and the licence.
        let manifest = try #require(try JSONSerialization.jsonObject(with: try file("MANIFEST.json")) as? [String: Any])
        #expect(manifest["format"] as? String == "caretide-phenotype-bundle" && manifest["formatVersion"] as? Int == 1)
        #expect((manifest["release"] as? [String: Any])?["releaseId"] as? Int == releaseID)
        #expect(manifest["diseaseCount"] as? Int == 12 && manifest["termCount"] as? Int == 59)
        #expect(((manifest["method"] as? [String: Any])?["ordering"] as? String)?.contains("1.5") == true)
        let entries = try #require(manifest["files"] as? [[String: Any]])
        #expect(entries.compactMap { $0["name"] as? String } == Array(names.dropLast()))
        for entry in entries {
            let name = try #require(entry["name"] as? String)
            let fileSum = try await Subprocess.run("/usr/bin/sha256sum", [folder.appendingPathComponent(name).path])
            #expect(fileSum.output.hasPrefix(try #require(entry["sha256"] as? String) + " "), "\(name)")
            #expect(entry["bytes"] as? Int == (try file(name)).count, "\(name)")
        }
        let licence = String(decoding: try file("LICENSE-HPO.txt"), as: UTF8.self)
        #expect(licence.contains("https://hpo.jax.org/license") && licence.contains("hp/releases/2025-01-16"))

        // The contents: every term with its information content, every disease, every annotation as ranked, and null
        // distributions that decode and belong to this knowledge base.
        let kb = try Self.referenceRanker().knowledgeBase
        let terms = String(decoding: try file("terms.tsv"), as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        #expect(terms.first == ["id", "name", "parents", "information_content", "disease_count"] && terms.count == 60)
        let arachnodactyly = try #require(terms.first { $0.first == "HP:0001166" })
        #expect(Double(arachnodactyly[3]) == kb.informationContent(of: try #require(kb.ontology.resolve("HP:0001166").term)))
        #expect(String(decoding: try file("diseases.tsv"), as: UTF8.self).split(separator: "\n").count == 13)
        // Old ids map as the service maps them.
        let mappings = String(decoding: try file("mappings.tsv"), as: UTF8.self).split(separator: "\n").dropFirst()
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(!mappings.isEmpty)
        for row in mappings {
            let resolved = kb.ontology.resolve(row[0])
            #expect(row[1] == "obsolete" ? resolved.term == nil : resolved.term.map { kb.ontology.id(of: $0) } == row[2], "\(row)")
        }
        #expect(String(decoding: try file("annotations.tsv"), as: UTF8.self).split(separator: "\n").count == report.annotationCount + 1)
        for name in ["null-asymmetric.prnl", "null-symmetric.prnl"] {
            let null = try NullDistribution(decoding: try file(name))
            #expect(String(null.fingerprint, radix: 16) == manifest["knowledgeBaseFingerprint"] as? String && null.fingerprint == kb.fingerprint)
        }

        // The same bytes again, or nothing when the caller has them; only who may rank may take it; only the serving
        // release is offered.
        #expect(try await HTTP.get(url).body == reply.body)
        let unchanged = try await HTTP.send(method: "GET", url, body: nil, as: .owner, headers: ["If-None-Match": "\"\(hex)\""])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
        #expect(try await HTTP.get(url, as: .identity(Identity(subject: "p-1", role: .patient))).status == 403)
        #expect(try await HTTP.get(base + "/v1/releases/\(releaseID + 1)/bundle").status == 409)
    }

    @Test("a minimum update serves phenotype search but ranking answers that a full update is needed; a failed import changes nothing")
    func minimumAndFailedUpdates() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        let base = stack.baseURL(DiagnosisService.name)
        let full = try await HPOFixture.importRelease(stack)
        let minimum = try await HPOFixture.importRelease(stack, kind: .minimum)
        #expect(minimum.release.releaseID == full.release.releaseID + 1 && minimum.diseaseCount == 0)
        try await HPOFixture.waitUntilServing(stack, release: minimum.release.releaseID)

        let found = try await HTTP.get(base + "/v1/phenotypes?q=hypotonia").decoded(SearchAnswer.self)
        #expect(found.results.first?.id == "HP:0001252")
        let diseases = try await HTTP.get(base + "/v1/diseases?q=marfan").decoded(SearchAnswer.self)
        #expect(diseases.results.isEmpty && diseases.message?.contains("full update") == true)
        let ranking = try await HTTP.post(base + "/v1/rankings", json: #"{"phenotypes": ["HP:0001250"]}"#)
        #expect(ranking.status == 503)
        #expect(try ranking.decoded(Problem.self).error.contains("needs a full update"))

        // A broken annotation file fails before anything is written, and the minimum release keeps serving.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID()).hpoa")
        try Data("#version: broken\ndatabase_id\tdisease_name\nOMIM:1\tonly two columns\n".utf8).write(to: broken)
        await #expect(throws: (any Error).self) {
            try await stack.withDatabase(schema: "diagnosis") { database, logger in
                try await OntologyImporter.importFiles(
                    kind: .full, ontologyFile: HPOFixture.ontologyFile, annotationFile: broken.path, database: database,
                    options: HPOFixture.importOptions, logger: logger)
            }
        }
        let listing = try await HTTP.get(base + "/v1/releases").decoded(ReleaseListing.self)
        #expect(listing.releases.map(\.releaseId) == [minimum.release.releaseID, full.release.releaseID])
        #expect(listing.serving?.releaseID == minimum.release.releaseID)
        try await stack.shutdown()
    }

    @Test("an import interrupted after writing rows rolls back completely")
    func interruptedImportLeavesNothing() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        struct Interrupted: Error {}
        await #expect(throws: Interrupted.self) {
            try await stack.withDatabase(schema: "diagnosis") { database, logger in
                try await database.transaction { connection in
                    _ = try await OntologyImporter.importFiles(
                        kind: .full, ontologyFile: HPOFixture.ontologyFile, annotationFile: HPOFixture.annotationFile, on: connection,
                        options: HPOFixture.importOptions, logger: logger)
                    throw Interrupted()
                }
            }
        }
        let counts = try await stack.withDatabase(schema: "diagnosis") { database, logger in
            try await database.client.fetchAll(
                """
                SELECT (SELECT count(*) FROM releases) + (SELECT count(*) FROM terms) + (SELECT count(*) FROM annotations)
                     + (SELECT count(*) FROM null_distributions)
                """, as: Int.self, logger: logger)
        }
        #expect(counts == [0])
        try await stack.shutdown()
    }

    @Test("saved queries: unique names per doctor (409 unless overwrite), load, edit, delete, rank; an empty one is saved but not ranked")
    func savedQueries() async throws {
        let stack = try await TestStack.start([DiagnosisService.definition])
        let base = stack.baseURL(DiagnosisService.name) + "/v1/doctors/dr-7/saved-queries"
        struct Saved: Decodable, Equatable {
            let queryId: UUID
            let name: String
            let phenotypes: [String]
            let excluded: [String]
            let scoring: String
        }
        struct SavedPage: Decodable {
            let items: [Saved]
            let nextCursor: String?
        }

        let created = try await HTTP.post(base, json: #"{"name": "visit 1", "phenotypes": ["HP:0001250"]}"#)
        #expect(created.status == 201)
        let first = try created.decoded(Saved.self)
        #expect(first.phenotypes == ["HP:0001250"] && first.excluded == [] && first.scoring == "asymmetric")

        let clash = try await HTTP.post(base, json: #"{"name": "visit 1", "phenotypes": ["HP:0001263"]}"#)
        #expect(clash.status == 409)
        #expect(try clash.decoded(Problem.self).violations.map(\.pointer) == ["/name"])
        let overwritten = try await HTTP.post(base, json: #"{"name": "visit 1", "phenotypes": ["HP:0001263"], "overwrite": true}"#)
        #expect(overwritten.status == 200)
        #expect(try overwritten.decoded(Saved.self).queryId == first.queryId)
        // Another doctor may use the same name.
        #expect(
            try await HTTP.post(
                stack.baseURL(DiagnosisService.name) + "/v1/doctors/dr-8/saved-queries",
                json: #"{"name": "visit 1", "phenotypes": ["HP:0001250"]}"#
            ).status == 201)

        let unnamed = try await HTTP.post(base, json: #"{"name": "", "phenotypes": []}"#)
        #expect(unnamed.status == 400)
        let unnamedPointers = try unnamed.decoded(Problem.self).violations.map(\.pointer)
        #expect(Set(unnamedPointers) == ["/name"], "\(unnamedPointers)")
        // A query begun before any phenotype is known is saved.
        let empty = try await HTTP.post(base, json: #"{"name": "to do", "phenotypes": []}"#)
        #expect(empty.status == 201)
        let emptyQuery = try empty.decoded(Saved.self)
        #expect(emptyQuery.phenotypes.isEmpty)
        #expect(try await HTTP.send(method: "DELETE", base + "/\(emptyQuery.queryId)").status == 204)

        let second = try await HTTP.post(base, json: #"{"name": "visit 2", "phenotypes": ["HP:0001252"], "scoring": "symmetric"}"#).decoded(
            Saved.self)
        let rename = try await HTTP.send(method: "PUT", base + "/\(second.queryId)", json: #"{"name": "visit 1", "phenotypes": ["HP:0001252"]}"#)
        #expect(rename.status == 409)
        let edited = try await HTTP.send(
            method: "PUT", base + "/\(second.queryId)",
            json: #"{"name": "visit 2b", "phenotypes": ["HP:0001252", "HP:0001250"], "excluded": ["HP:0001263"]}"#)
        #expect(edited.status == 200)
        #expect(try edited.decoded(Saved.self).excluded == ["HP:0001263"])

        let listed = try await HTTP.get(base).decoded(SavedPage.self).items
        #expect(listed.map(\.name) == ["visit 1", "visit 2b"])
        // One at a time: the cursor goes on after the first name.
        let firstPage = try await HTTP.get(base + "?limit=1").decoded(SavedPage.self)
        #expect(firstPage.items.map(\.name) == ["visit 1"])
        let secondPage = try await HTTP.get(base + "?limit=1&cursor=\(try #require(firstPage.nextCursor))").decoded(SavedPage.self)
        #expect(secondPage.items.map(\.name) == ["visit 2b"])
        #expect(secondPage.nextCursor == nil)
        #expect(try await HTTP.get(base + "/\(second.queryId)").decoded(Saved.self).name == "visit 2b")
        // Doctors see only their own queries.
        #expect(try await HTTP.get(stack.baseURL(DiagnosisService.name) + "/v1/doctors/dr-8/saved-queries/\(second.queryId)").status == 404)

        // Ranking a saved query uses the serving release (none yet: 503; after an import: ranked).
        #expect(try await HTTP.post(base + "/\(second.queryId)/ranking", json: "").status == 503)
        let report = try await HPOFixture.importRelease(stack)
        try await HPOFixture.waitUntilServing(stack, release: report.release.releaseID)
        let ranked = try await HTTP.post(base + "/\(second.queryId)/ranking", json: "").decoded(DiagnosisRanked.self)
        // Ranking a saved query with no phenotypes is a 400 naming them.
        let blank = try await HTTP.post(base, json: #"{"name": "blank", "phenotypes": []}"#).decoded(Saved.self)
        let unranked = try await HTTP.post(base + "/\(blank.queryId)/ranking", json: "")
        let unrankedPointers = try unranked.decoded(Problem.self).violations.map(\.pointer)
        #expect(unranked.status == 400 && unrankedPointers == ["/phenotypes"])
        #expect(ranked.queryTerms.map(\.id) == ["HP:0001252", "HP:0001250"] && ranked.excludedTerms.map(\.id) == ["HP:0001263"])

        #expect(try await HTTP.send(method: "DELETE", base + "/\(second.queryId)").status == 204)
        #expect(try await HTTP.send(method: "DELETE", base + "/\(second.queryId)").status == 404)
        #expect(try await HTTP.get(base + "/\(second.queryId)").status == 404)
        try await stack.shutdown()
    }
}

extension HTTP.Reply {
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder.decode(T.self, from: CaretideJSON.parse(body))
    }
}
