import CaretideRuntime
import DiagnosisService
import Foundation

// The PDF printer (`REPORT_PDF_BROWSER`) is checked with the rest of the configuration.
await ServiceMain.run(name: DiagnosisService.name, defaultPort: DiagnosisService.defaultPort) { environment throws(InvalidConfiguration) in
    DiagnosisService.definition(
        importOptions: OntologyImportOptions(), dataDirectory: environment["HPO_DATA_DIR"], printer: try PDFPrinter.configured(environment))
}
