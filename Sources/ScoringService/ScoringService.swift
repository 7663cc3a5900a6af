public import CaretideIdentity
public import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation

/// scoring-service: assesses measurements, NPI inputs, melanoma risk profiles and exam reports with the clinical rules,
/// and outside classifiers' answers about skin photos with their certainty,
/// analyses each patient's days of meals against the dietary reference values (by the sex and age of the patient's
/// profile, from `caretide.patients`),
/// keeps every assessment (full history, never overwritten: corrections supersede, deletions withdraw), watches each
/// patient's series for trends, and publishes all of it on `caretide.scores`.
public enum ScoringService {
    public static let name = "scoring-service"
    public static let defaultPort = 8081

    /// Tips and labels in English only; PDF reports printed by Debian's Chromium when it is installed.
    public static var definition: ServiceDefinition {
        definition(tips: TipCatalog(), printer: (try? PDFPrinter.configured([:])) ?? PDFPrinter(browser: nil))
    }

    /// - Parameters:
    ///   - tips: the languages tips and labels are answered in (`Accept-Language`).
    ///   - printer: how PDF reports are printed (`REPORT_PDF_BROWSER`).
    ///   - shareKey: the key share links are checked with (`REPORT_SHARE_KEY`); none refuses shared links.
    ///   - classifiers: the classifier models whose answers about skin photos are accepted (`CLASSIFIER_MODELS`).
    public static func definition(
        tips: TipCatalog, printer: PDFPrinter, shareKey: ShareKey? = nil, classifiers: ClassifierModels = ClassifierModels()
    ) -> ServiceDefinition {
        var definition = ServiceDefinition(
            name: name, schema: "scoring", migrations: ScoringMigrations.track,
            consumedTopics: [
                .measurements, .npi, .riskProfiles, .examResults, .environment, .meals, .photos, .photoClassifications, .patients,
            ],
            handler: ScoringHandler(classifiers: classifiers), careTeam: .projection, patientData: ScoringPatientData.patientData
        ) { routes, context in
            AssessmentRoutes(context: context, tips: tips).register(on: routes)
            ClinicalHistoryRoutes(context: context, tips: tips).register(on: routes)
            SeriesRoutes(context: context).register(on: routes)
            ReferenceTableRoutes().register(on: routes)
            let reports = ReportRoutes(context: context, tips: tips, printer: printer, shareKey: shareKey)
            reports.register(on: routes)
            OutsideShareRoutes(context: context, tips: tips, printer: printer, reports: reports).register(on: routes)
            NutritionRoutes(context: context, tips: tips).register(on: routes)
        }
        definition.outsideViewers = OutsideShareViewers()
        return definition
    }

    /// `TIP_TRANSLATIONS_DIR`: translations of the tips and labels (`TipCatalog.configured`).
    public static func tips(_ environment: [String: String]) throws(InvalidConfiguration) -> TipCatalog {
        try TipCatalog.configured(environment)
    }
}
