import CaretideIdentity
import CaretideRuntime
import ScoringService

// The tips' translations (`TIP_TRANSLATIONS_DIR`), the PDF printer (`REPORT_PDF_BROWSER`), the share links' key
// (`REPORT_SHARE_KEY`) and the classifier models (`CLASSIFIER_MODELS`) are scoring-service's own, checked with the rest
// of the configuration.
await ServiceMain.run(name: ScoringService.name, defaultPort: ScoringService.defaultPort) { environment throws(InvalidConfiguration) in
    ScoringService.definition(
        tips: try ScoringService.tips(environment), printer: try PDFPrinter.configured(environment),
        shareKey: try ShareKey.configured(environment["REPORT_SHARE_KEY"]), classifiers: try ClassifierModels.fromEnvironment(environment))
}
