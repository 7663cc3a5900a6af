import ArgumentParser
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import DiagnosisService
import Foundation
import Logging
import PhenotypeRanking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// diagnosis-service on a full HPO release, on this machine:
/// 1. import into a private PostgreSQL (fsync on): parse, null distributions, accuracy report, write;
/// 2. the built diagnosis-service loading that release, and its resident memory once serving;
/// 3. ranking latency on one core for 1-, 5- and 10-term queries (asymmetric with p-values, and symmetric), from the
///    release as read back from PostgreSQL;
/// 4. the same queries ranked by hpo3 (PyPI, a Rust implementation) in the same run, when its Python is given.
struct PhenotypeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phenotype",
        abstract: "diagnosis-service: import time, memory, ranking latency; hpo3 on the same queries.",
        discussion: "scripts/bench/phenotype fetches the release, installs hpo3 in a virtual environment and runs this.")

    @Option(help: "Folder holding hp.obo and phenotype.hpoa (and genes_to_phenotype.txt for hpo3).") var directory: String
    @Option(help: "Queries per size (1, 5 and 10 terms).") var queries = 200
    @Option(help: "Random queries per query size in the null distributions.") var samples = 10_000
    @Option(help: "Score bins of the null distributions (their memory grows with it).") var bins = OntologyImportOptions().nullBinCount
    @Option(help: "A Python with hpo3 installed; the comparison is skipped without it.") var hpo3Python: String?
    @Option(help: "The hpo3 ranking script.") var hpo3Script = "scripts/bench/hpo3_rank.py"
    @Option(
        help:
            "Only rank the 5-term queries by the default order this many times over and print the time they took (for a profile of that ranking alone, under perf)"
    ) var fiveTermRounds: Int?

    func validate() throws {
        guard queries >= 1 else { throw ValidationError("--queries must be at least 1") }
        guard (fiveTermRounds ?? 1) >= 1 else { throw ValidationError("--five-term-rounds must be at least 1") }
        guard (1...NullDistribution.maxSampleCount).contains(samples) else {
            throw ValidationError("--samples must be from 1 to \(NullDistribution.maxSampleCount)")
        }
        guard (2...Int(UInt16.max)).contains(bins) else { throw ValidationError("--bins must be from 2 to 65535") }
    }

    func run() async throws {
        let logger = BenchPostgres.logger
        let bench = try await BenchPostgres.start(logger: logger)
        defer { bench.stop() }
        let postgres = bench.server
        let database = Database(configuration: postgres.configuration, schema: "diagnosis", logger: logger)
        let definition = DiagnosisService.definition

        // 1. Import.
        var options = OntologyImportOptions()
        options.nullSampleCount = samples
        options.nullBinCount = bins
        let importOptions = options
        let directory = self.directory
        let clock = ContinuousClock()
        let importStart = clock.now
        @Sendable func importRelease(_ database: Database) async throws -> OntologyImportReport {
            try await OntologyImporter.importFiles(
                kind: .full, ontologyFile: "\(directory)/hp.obo", annotationFile: "\(directory)/phenotype.hpoa", database: database,
                options: importOptions, logger: logger)
        }
        let report = try await database.whileRunning {
            try await Migrator(tracks: [definition.migrations]).migrate(database, logger: logger)
            return try await importRelease(database)
        }
        let importWall = clock.now - importStart
        Console.write(report.summary + "\n")
        Console.write(
            String(
                format: "import wall time (parse to commit, %d null samples per size, %d threads): %.2f s\n",
                samples, importOptions.concurrency, importWall.seconds))

        // 2. The service loading the release, and its memory; then a second import while it serves, swapped in
        //    without downtime (the peak is when the old and the new release are both in memory).
        try await measureService(postgres: postgres, keys: bench.directory.appendingPathComponent("auth"), logger: logger) {
            let reimport = Database(configuration: postgres.configuration, schema: "diagnosis", logger: logger)
            return try await reimport.whileRunning { try await importRelease(reimport) }.release.releaseID
        }

        // 3. Ranking latency, one core, the release as read back from PostgreSQL.
        // A PostgreSQL pool runs once, so the read-back gets a pool of its own.
        let reader = Database(configuration: postgres.configuration, schema: "diagnosis", logger: logger)
        guard let ranker = try await reader.whileRunning({ try await OntologyReleases.loadNewest(reader, logger: logger) })?.ranker
        else { throw ValidationError("the imported release did not load") }
        let nullMegabytes = ScoringMode.allCases.map { String(format: "%.0f MB", Double(ranker.nullDistribution(for: $0)?.byteCount ?? 0) / 1e6) }
        Console.write("null distributions in memory (\(bins) bins): asymmetric \(nullMegabytes[0]), symmetric \(nullMegabytes[1])\n")
        let workload = Self.queries(ranker.knowledgeBase, perSize: queries)
        if let rounds = fiveTermRounds, let five = workload.first(where: { $0.0 == 5 })?.1 {
            let start = clock.now
            for _ in 0..<rounds {
                for terms in five {
                    _ = try ranker.rank(terms: terms, options: RankingOptions(method: .likelihoodRatio, scoring: .asymmetric, maxResults: 20))
                }
            }
            let elapsed = (clock.now - start).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            Console.write(
                String(
                    format: "%d five-term rankings by likelihood ratio in %.2f s, %.3f ms each\n", rounds * five.count, seconds,
                    seconds * 1000 / Double(rounds * five.count)))
            return
        }
        for scoring in ScoringMode.allCases {
            for (size, list) in workload {
                var timings: [Duration] = []
                var checksum = 0.0
                for (index, terms) in list.enumerated() {
                    let start = clock.now
                    let result = try ranker.rank(terms: terms, options: RankingOptions(scoring: scoring, maxResults: 20))
                    // The first few warm the caches and are not timed.
                    if index >= 5 { timings.append(clock.now - start) }
                    checksum += result.results.first?.pValue ?? 0
                }
                let summary = LatencySummary(timings)
                Console.write(
                    "swift \(scoring == .asymmetric ? "asymmetric" : "symmetric "), p-values: \(size) terms over \(ranker.knowledgeBase.diseaseCount) diseases: "
                        + "p50 \(summary.milliseconds(0.5, digits: 2)), p99 \(summary.milliseconds(0.99, digits: 2)) (\(timings.count) queries, checksum \(String(format: "%.3f", checksum)))\n"
                )
            }
        }

        // The default order, by likelihood ratio (with the asymmetric p-values), on the same queries; and queries of 20
        // present and 5 excluded findings, the size of a published case report's.
        // Only a release with that many annotated terms (the full one; not a test's fixture) has such queries.
        let long = Self.queries(ranker.knowledgeBase, perSize: queries, sizes: [25], seed: 2027).filter { $0.1.allSatisfy { $0.count == 25 } }.map {
            _, list in ("20 + 5 excluded", list.map { (Array($0.prefix(20)), Array($0.suffix(5))) })
        }
        for (size, list) in workload.map({ size, list in ("\(size)", list.map { ($0, [String]()) }) }) + long {
            var timings: [Duration] = []
            var checksum = 0.0
            for (index, query) in list.enumerated() {
                let start = clock.now
                let result = try ranker.rank(
                    terms: query.0, excluding: query.1, options: RankingOptions(method: .likelihoodRatio, scoring: .asymmetric, maxResults: 20))
                if index >= 5 { timings.append(clock.now - start) }
                checksum += result.results.first?.likelihoodRatio?.posteriorProbability ?? 0
            }
            let summary = LatencySummary(timings)
            Console.write(
                "swift likelihood ratio, p-values: \(size) terms over \(ranker.knowledgeBase.diseaseCount) diseases: "
                    + "p50 \(summary.milliseconds(0.5, digits: 2)), p99 \(summary.milliseconds(0.99, digits: 2)) (\(timings.count) queries, checksum \(String(format: "%.3f", checksum)))\n"
            )
        }

        // 4. hpo3 on the same queries.
        try await compareWithHPO3(workload)
    }

    /// `perSize` queries of 1, 5 and 10 (or `sizes`) distinct terms drawn from the phenotypes some disease is annotated
    /// with (seeded, so every run ranks the same queries), plus 5 warm-up queries each; a query holds every such
    /// phenotype when there are fewer than its size.
    static func queries(_ kb: PhenotypeKnowledgeBase, perSize: Int, sizes: [Int] = [1, 5, 10], seed: UInt64 = 2026) -> [(Int, [[String]])] {
        var annotated = Set<TermIndex>()
        for d in 0..<kb.diseaseCount { annotated.formUnion(kb.annotations(ofDisease: d)) }
        let universe = annotated.sorted().map { kb.ontology.id(of: $0) }
        var random = Xoshiro256StarStar(seed: seed)
        return sizes.map { size in
            (
                size,
                (0..<(perSize + 5)).map { _ in
                    var picked = Set<String>()
                    while picked.count < min(size, universe.count) { picked.insert(universe[random.nextInt(below: universe.count)]) }
                    return picked.sorted()
                }
            )
        }
    }

    /// - Parameter keys: where the development issuer's key is kept: the service trusts it as `caretide dev`'s services
    ///   do (every request needs a verified identity), and the bench reads the release list with a token from it.
    private func measureService(
        postgres: LocalPostgres, keys: URL, logger: Logger, importAgain: @Sendable () async throws -> Int
    ) async throws {
        let issuer = try TokenIssuer.development(in: keys)
        let token = try await issuer.token(for: Identity(subject: "caretide-bench", role: .operator))
        let broker = try EmbeddedBroker(logger: logger)
        for topic in Topic.allCases { try broker.createTopic(topic.name, partitions: 1) }
        let port = try FreePort.find()
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = postgres.configuration.url
        environment["KAFKA_BROKERS"] = broker.bootstrapServers
        environment["HTTP_HOST"] = "127.0.0.1"
        environment["HTTP_PORT"] = String(port)
        environment["LOG_LEVEL"] = "warning"
        environment["CARETIDE_EXIT_WITH_PARENT"] = "1"
        // As the manifests run it: two malloc arenas keep a reload's peak down.
        environment["MALLOC_ARENA_MAX"] = "2"
        environment["AUTH_JWKS_FILE"] = TokenIssuer.jwksFile(in: keys).path
        environment["AUTH_ISSUER"] = issuer.issuer
        environment["AUTH_AUDIENCE"] = issuer.audience
        let service = ServiceProcess(
            name: DiagnosisService.name, executable: ServiceProcess.executableDirectory.appendingPathComponent(DiagnosisService.name),
            environment: environment)
        let clock = ContinuousClock()
        let start = clock.now
        try service.start()
        defer { _ = broker }
        let base = "http://127.0.0.1:\(port)"
        func waitUntilServing(_ marker: String) async throws {
            while clock.now - start < .seconds(600) {
                if let data = try? await Self.get(base + "/v1/releases", token: token), String(decoding: data, as: UTF8.self).contains(marker) {
                    return
                }
                guard service.isRunning else { throw ValidationError("diagnosis-service exited (status \(service.exitCode ?? -1))") }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw ValidationError("diagnosis-service did not serve the release within 600 s")
        }
        try await waitUntilServing(#""serving":{"#)
        let loaded = clock.now - start
        let memory = Self.memory(of: service.pid ?? 0)
        Console.write(
            String(format: "diagnosis-service: serving the release %.2f s after start; ", loaded.seconds)
                + "resident memory \(memory.current) (peak \(memory.peak))\n")

        let releaseID = try await importAgain()
        let swapStart = clock.now
        // Keys are sorted, so the serving release is the listing's last object.
        try await waitUntilServing(#""releaseId":\#(releaseID)}}"#)
        let swapped = Self.memory(of: service.pid ?? 0)
        Console.write(
            String(format: "after a second import: release \(releaseID) serving %.2f s after its commit; ", (clock.now - swapStart).seconds)
                + "resident memory \(swapped.current) (peak over both loads \(swapped.peak))\n")
        await service.stop()
    }

    private func compareWithHPO3(_ workload: [(Int, [[String]])]) async throws {
        guard let python = hpo3Python else {
            Console.write("hpo3: skipped (give --hpo3-python; scripts/bench/phenotype installs it)\n")
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-hpo3-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let queriesFile = folder.appendingPathComponent("queries.json")
        let resultFile = folder.appendingPathComponent("hpo3.json")
        // The warm-up queries stay out: the script warms up on its own.
        let list = workload.flatMap { size, queries in queries.dropFirst(5).map { ["size": size, "terms": $0] as [String: Any] } }
        try JSONSerialization.data(withJSONObject: ["queries": list]).write(to: queriesFile)
        // The script resolves the Python it is given by path, so a virtual environment's interpreter works.
        let run = try await Subprocess.run(
            "/usr/bin/env",
            [python, hpo3Script, "--data", directory, "--queries", queriesFile.path, "--profile", "caretide", "--output", resultFile.path])
        let status = run.status
        guard status == 0, let data = FileManager.default.contents(atPath: resultFile.path),
            let result = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bySize = result["by_size"] as? [String: [String: Any]]
        else {
            Console.write("hpo3: the comparison script failed (exit \(status)): \(run.output.suffix(1000))\n")
            return
        }
        for size in ["1", "5", "10"] {
            guard let row = bySize[size], let p50 = row["p50_ms"] as? Double, let p99 = row["p99_ms"] as? Double else { continue }
            Console.write(
                "hpo3 \(result["hpo3_version"] ?? "?") symmetric (funSimAvg, no p-values, 1 thread): \(size) terms over "
                    + "\(result["disease_count"] ?? "?") diseases: " + String(format: "p50 %.2f ms, p99 %.2f ms\n", p50, p99))
        }
    }

    static func get(_ url: String, token: String) async throws -> Data {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 5
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return try await URLSession.shared.data(for: request).0
    }

    /// VmRSS and VmHWM of a process, from /proc.
    static func memory(of pid: pid_t) -> (current: String, peak: String) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> String {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                let kilobytes = Double($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
                return String(format: "%.0f MB", kilobytes / 1024)
            } ?? "n/a"
        }
        return (field("VmRSS"), field("VmHWM"))
    }
}
