public import CaretideSchemas
public import DiagnosisService
public import Foundation

/// The committed HPO fixture (`Tests/PhenotypeRankingTests/Fixtures`: 12 diseases, 59 terms of the 2025-01-16
/// release), imported as the diagnosis tests import it: with small null distributions, so an import takes seconds.
public enum HPOFixture {
    public static let directory = Paths.packageRoot.appendingPathComponent("Tests/PhenotypeRankingTests/Fixtures")
    public static let ontologyFile = directory.appendingPathComponent("hp.obo").path
    public static let annotationFile = directory.appendingPathComponent("phenotype.hpoa").path

    public static var importOptions: OntologyImportOptions {
        var options = OntologyImportOptions()
        options.nullSampleCount = 2_000
        options.symmetricNullSampleCount = 1_000
        options.concurrency = 2
        return options
    }

    /// Imports the fixture into the stack's diagnosis schema, as a new release.
    public static func importRelease(_ stack: TestStack, kind: OntologyUpdateKind = .full) async throws -> OntologyImportReport {
        try await stack.withDatabase(schema: "diagnosis") { database, logger in
            try await OntologyImporter.importFiles(
                kind: kind, ontologyFile: ontologyFile, annotationFile: annotationFile, database: database, options: importOptions,
                logger: logger)
        }
    }

    /// Waits until the stack's diagnosis-service serves `release`.
    public static func waitUntilServing(_ stack: TestStack, release: Int) async throws {
        let base = stack.baseURL(DiagnosisService.name)
        try await eventually("release \(release) serving") {
            let listing = try await HTTP.get(base + "/v1/releases")
            return try JSONValueDecoder.decode(Serving.self, from: CaretideJSON.parse(listing.body)).serving?.releaseID == release
        }
    }

    /// What `GET /v1/releases` says is serving.
    private struct Serving: Decodable {
        let serving: OntologyReleaseReference?
    }
}
