import CaretideRuntime
public import CaretideSchemas
public import CaretideStore
import Foundation
import Logging
import PhenotypeRanking
public import PostgresNIO

/// How an import computes what it stores.
public struct OntologyImportOptions: Sendable {
    /// Random queries per query size in each null distribution (Köhler et al. 2009 used 100,000; 10,000 resolves
    /// p-values down to 1/10,001).
    public var nullSampleCount: Int = 10_000
    /// The same for the symmetric mode, whose sampling costs about ten times more per query (it scores the disease →
    /// query direction too); 5,000 keeps a full import under 30 s on two cores and resolves p down to 1/5,001.
    public var symmetricNullSampleCount: Int = 5_000
    /// Query sizes with their own null distribution; larger queries use the largest.
    public var nullMaxQuerySize: Int = 10
    /// Score bins of the null distributions over `[0, ln D]`. A p-value is conservative by at most one bin (0.018
    /// nats for the full release at 512); the stored survival counts, most of a serving release's memory, grow with it
    /// (about 150 MB for both modes of the full release at 1,024 bins, half that at 512).
    public var nullBinCount: Int = 512
    /// Worker threads for the null distributions (the result does not depend on it).
    public var concurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Diseases simulated by the recall check of the accuracy report.
    public var recallDiseaseCount: Int = 500
    /// Releases kept after an import (the newest ones); older ones are deleted.
    public var keepReleases: Int = 3

    public init() {}
}

/// What an import did and how long each step took.
public struct OntologyImportReport: Sendable, Encodable {
    public var release: OntologyReleaseReference
    public var termCount: Int
    public var diseaseCount: Int
    public var annotationCount: Int
    public var loadWarningCount: Int
    public var accuracy: AccuracyReport?
    public var parseSeconds: Double
    public var nullDistributionSeconds: Double
    public var accuracySeconds: Double
    public var writeSeconds: Double
    public var totalSeconds: Double
}

/// Imports an HPO release: parses the files, builds the knowledge base, samples the p-value null distributions
/// (asymmetric and symmetric), runs the recall check, and writes it all as a new release in one transaction. A
/// failed or interrupted import rolls back and the previous release keeps serving.
public enum OntologyImporter {
    /// Reads the files and imports them in a transaction of its own (`caretide hpo import`).
    public static func importFiles(
        kind: OntologyUpdateKind, ontologyFile: String, annotationFile: String?, updateID: String? = nil, database: Database,
        options: OntologyImportOptions = .init(), logger: Logger
    ) async throws -> OntologyImportReport {
        // Seconds of parsing and sampling: on Dispatch's threads, not the cooperative ones the requests run on.
        let prepared = try await runOffCooperativePool {
            try prepareFiles(kind: kind, ontologyFile: ontologyFile, annotationFile: annotationFile, options: options, logger: logger)
        }
        return try await database.transaction { connection in
            try await store(prepared, updateID: updateID, options: options, on: connection, logger: logger)
        }
    }

    /// Reads the files and imports them on `connection`, which must be inside a transaction: the release becomes
    /// visible when that transaction commits, and not at all if it rolls back.
    public static func importFiles(
        kind: OntologyUpdateKind, ontologyFile: String, annotationFile: String?, updateID: String? = nil, on connection: PostgresConnection,
        options: OntologyImportOptions = .init(), logger: Logger
    ) async throws -> OntologyImportReport {
        // Seconds of parsing and sampling: on Dispatch's threads, not the cooperative ones the requests run on.
        let prepared = try await runOffCooperativePool {
            try prepareFiles(kind: kind, ontologyFile: ontologyFile, annotationFile: annotationFile, options: options, logger: logger)
        }
        return try await store(prepared, updateID: updateID, options: options, on: connection, logger: logger)
    }

    private static func prepareFiles(
        kind: OntologyUpdateKind, ontologyFile: String, annotationFile: String?, options: OntologyImportOptions, logger: Logger
    ) throws -> PreparedRelease {
        let (ontology, annotations) = try readFiles(kind: kind, ontologyFile: ontologyFile, annotationFile: annotationFile)
        return try prepare(kind: kind, ontology: ontology, annotations: annotations, options: options, logger: logger)
    }

    private static func readFiles(kind: OntologyUpdateKind, ontologyFile: String, annotationFile: String?) throws -> (Data, Data?) {
        func read(_ path: String) throws -> Data {
            guard let data = FileManager.default.contents(atPath: path) else { throw OntologyImportError.unreadableFile(path) }
            return data
        }
        let ontology = try read(ontologyFile)
        guard kind == .full else { return (ontology, nil) }
        guard let annotationFile else { throw OntologyImportError.annotationFileRequired }
        return (ontology, try read(annotationFile))
    }

    /// Everything an import computes before it writes.
    struct PreparedRelease: Sendable {
        var content: ReleaseContent
        var ontology: PhenotypeOntology
        var knowledgeBase: PhenotypeKnowledgeBase?
        var nulls: [NullDistribution]
        var accuracy: AccuracyReport?
        var parseSeconds: Double
        var nullDistributionSeconds: Double
        var accuracySeconds: Double
    }

    /// The CPU-bound part of an import (no I/O).
    static func prepare(
        kind: OntologyUpdateKind, ontology ontologyData: Data, annotations: Data?, options: OntologyImportOptions, logger: Logger
    ) throws -> PreparedRelease {
        let clock = ContinuousClock()
        var start = clock.now
        let content = try ReleaseContent.parse(kind: kind, ontology: ontologyData, annotations: annotations)
        let ontology = try PhenotypeOntology(document: content.document)
        let knowledgeBase = try content.annotations.map { try PhenotypeKnowledgeBase(ontology: ontology, annotations: $0) }
        // Refused before anything is stored or pruned: a file that parses but is no HPO release (an empty or foreign
        // file) must not become the serving release, nor push a real one out of the kept three.
        guard case .current = ontology.resolve("HP:0000118") else {
            throw OntologyImportError.invalidRelease("it has no HP:0000118 (Phenotypic abnormality)")
        }
        if kind == .full, (knowledgeBase?.annotationCount ?? 0) == 0 {
            throw OntologyImportError.invalidRelease("a full update has no annotations")
        }
        let parseSeconds = (clock.now - start).seconds
        logger.info(
            "ontology release parsed",
            metadata: [
                LogKey.kind: "\(kind.rawValue)", LogKey.terms: "\(ontology.termCount)", LogKey.diseases: "\(knowledgeBase?.diseaseCount ?? 0)",
                LogKey.seconds: "\(parseSeconds)",
            ])

        guard let knowledgeBase else {
            return PreparedRelease(
                content: content, ontology: ontology, knowledgeBase: nil, nulls: [], accuracy: nil, parseSeconds: parseSeconds,
                nullDistributionSeconds: 0, accuracySeconds: 0)
        }
        start = clock.now
        let nulls = try ScoringMode.allCases.map { scoring in
            try NullDistribution.build(
                for: knowledgeBase,
                options: NullDistributionOptions(
                    scoring: scoring,
                    sampleCount: scoring == .asymmetric ? options.nullSampleCount : options.symmetricNullSampleCount,
                    maxQuerySize: options.nullMaxQuerySize, binCount: options.nullBinCount,
                    concurrency: options.concurrency))
        }
        let nullSeconds = (clock.now - start).seconds

        start = clock.now
        let ranker = try PhenotypeRanker(knowledgeBase: knowledgeBase, nullDistributions: nulls)
        let accuracy = try AccuracyReport.measure(ranker, diseaseCount: options.recallDiseaseCount)
        let accuracySeconds = (clock.now - start).seconds
        logger.info(
            "null distributions and accuracy report computed",
            metadata: [
                LogKey.nullSeconds: "\(nullSeconds)", LogKey.accuracySeconds: "\(accuracySeconds)",
            ])
        return PreparedRelease(
            content: content, ontology: ontology, knowledgeBase: knowledgeBase, nulls: nulls, accuracy: accuracy,
            parseSeconds: parseSeconds, nullDistributionSeconds: nullSeconds, accuracySeconds: accuracySeconds)
    }

    /// Writes a prepared release on `connection`, which must be inside a transaction, and prunes old releases.
    static func store(
        _ prepared: PreparedRelease, updateID: String?, options: OntologyImportOptions, on connection: PostgresConnection, logger: Logger
    ) async throws -> OntologyImportReport {
        let start = ContinuousClock.now
        let computeSeconds = prepared.parseSeconds + prepared.nullDistributionSeconds + prepared.accuracySeconds
        let store = ReleaseStore(connection: connection, logger: logger)
        let releaseID = try await store.insert(prepared, updateID: updateID, importSeconds: computeSeconds)
        try await store.prune(keeping: options.keepReleases)
        let writeSeconds = (ContinuousClock.now - start).seconds
        logger.info("ontology release stored", metadata: [LogKey.releaseID: "\(releaseID)", LogKey.seconds: "\(writeSeconds)"])
        return OntologyImportReport(
            release: prepared.reference(releaseID: releaseID), termCount: prepared.ontology.termCount,
            diseaseCount: prepared.knowledgeBase?.diseaseCount ?? 0, annotationCount: prepared.knowledgeBase?.annotationCount ?? 0,
            loadWarningCount: prepared.knowledgeBase?.warnings.count ?? 0, accuracy: prepared.accuracy,
            parseSeconds: prepared.parseSeconds, nullDistributionSeconds: prepared.nullDistributionSeconds,
            accuracySeconds: prepared.accuracySeconds, writeSeconds: writeSeconds, totalSeconds: computeSeconds + writeSeconds)
    }
}

extension OntologyImporter.PreparedRelease {
    func reference(releaseID: Int) -> OntologyReleaseReference {
        OntologyReleaseReference(
            releaseID: releaseID, kind: content.kind, ontologyVersion: content.document.dataVersion,
            annotationVersion: content.annotations?.version)
    }
}

extension OntologyImportReport {
    /// A few lines for a terminal (`caretide hpo import`, `caretide-bench phenotype`).
    public var summary: String {
        var lines = [
            "release \(release.releaseID) (\(release.kind.rawValue)): ontology \(release.ontologyVersion ?? "unversioned"), "
                + "annotations \(release.annotationVersion ?? "none")",
            "\(termCount) terms, \(diseaseCount) diseases, \(annotationCount) annotations, \(loadWarningCount) annotation rows mapped or skipped",
            String(
                format: "parse %.2f s, null distributions %.2f s, accuracy report %.2f s, write %.2f s, total %.2f s",
                parseSeconds, nullDistributionSeconds, accuracySeconds, writeSeconds, totalSeconds),
        ]
        for scenario in accuracy?.scenarios ?? [] {
            lines.append(
                "recall \(scenario.name): \(scenario.evaluated) simulated patients, "
                    + String(format: "first %.1f %%, ", scenario.rankedFirst * 100)
                    + (scenario.inTopThree.map { String(format: "top three %.1f %%, ", $0 * 100) } ?? "")
                    + String(format: "top ten %.1f %%", scenario.inTopTen * 100))
        }
        return lines.joined(separator: "\n")
    }
}
