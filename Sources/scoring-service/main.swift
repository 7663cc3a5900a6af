import CaretideRuntime
import ScoringService

// The tips' translations (`TIP_TRANSLATIONS_DIR`) and the PDF printer (`REPORT_PDF_BROWSER`) are scoring-service's
// own, checked with the rest of the configuration.
await ServiceMain.run(name: ScoringService.name, defaultPort: ScoringService.defaultPort) { environment throws(InvalidConfiguration) in
    ScoringService.definition(tips: try ScoringService.tips(environment), printer: try PDFPrinter.configured(environment))
}
