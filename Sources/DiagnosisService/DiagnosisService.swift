public import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation

/// diagnosis-service: Human Phenotype Ontology search and Phenomizer disease ranking with p-values (Köhler et al.
/// 2009), over ontology releases versioned in PostgreSQL; saved queries per doctor; and the
/// `caretide.diagnosis-requests` → `caretide.diagnosis-results` topics for pipelines.
public enum DiagnosisService {
    public static let name = "diagnosis-service"
    public static let defaultPort = 8083

    /// With imports by event reading only under `HPO_DATA_DIR` (off when it is not set); rankings printed to PDF by
    /// Debian's Chromium when it is installed.
    public static var definition: ServiceDefinition {
        definition(
            importOptions: OntologyImportOptions(), dataDirectory: ProcessInfo.processInfo.environment["HPO_DATA_DIR"],
            printer: (try? PDFPrinter.configured([:])) ?? PDFPrinter(browser: nil))
    }

    /// - Parameters:
    ///   - importOptions: how imports started by an `ontology-update.requested` event compute their data.
    ///   - dataDirectory: the only directory such an event may name files in; nil turns imports by event off.
    ///   - printer: how a ranking's export is printed to PDF (`REPORT_PDF_BROWSER`).
    public static func definition(
        importOptions: OntologyImportOptions, dataDirectory: String?, printer: PDFPrinter = PDFPrinter(browser: nil)
    ) -> ServiceDefinition {
        let catalog = ReleaseCatalog()
        let releaseFiles = ReleaseFileGuard(directory: dataDirectory)
        return ServiceDefinition(
            name: name, schema: "diagnosis", migrations: DiagnosisMigrations.track, consumedTopics: [.diagnosisRequests],
            handler: DiagnosisRequestHandler(
                catalog: catalog, importOptions: importOptions, releaseFiles: releaseFiles),
            routes: { routes, context in
                SearchRoutes(catalog: catalog).register(on: routes)
                RankingRoutes(catalog: catalog, printer: printer).register(on: routes)
                SavedQueryRoutes(context: context, catalog: catalog).register(on: routes)
                ReleaseRoutes(context: context, catalog: catalog).register(on: routes)
                UpdateRequestRoutes(context: context, catalog: catalog, releaseFiles: releaseFiles).register(on: routes)
            },
            backgroundServices: { context in [ReleaseWatcher(catalog: catalog, context: context)] })
    }
}
