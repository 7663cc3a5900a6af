public import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation

/// ingest-service: accepts measurements, meals and clinical inputs from patients and institutions over HTTP, keeps each
/// patient's profile, stores each record
/// once (with its corrections as revisions), refuses values the clinical rules cannot assess, and announces every
/// change through the outbox.
public enum IngestService {
    public static let name = "ingest-service"
    public static let defaultPort = 8080

    public static var definition: ServiceDefinition { definition(sync: SyncSettings()) }

    /// - Parameters:
    ///   - releaseCheck: how often delayed exam reports are looked at for release.
    ///   - foodTableCheck: how often a newer food table release is looked for (`caretide foods import`).
    ///   - photos: the limits skin photos are checked against (`PHOTO_*`).
    public static func definition(
        sync: SyncSettings, photos: PhotoSettings = PhotoSettings(), exports: ExportSettings = ExportSettings(),
        releaseCheck: Duration = .seconds(30),
        foodTableCheck: Duration = .seconds(5)
    ) -> ServiceDefinition {
        let checker = PhotoChecker(settings: photos)
        let links = PhotoLinks(settings: photos)
        // The food table this service instance holds in memory, loaded by its refresh job, read by its routes.
        let catalogue = FoodCatalogue()
        // Patients grant and revoke here, so ingest-service writes the grants it checks itself.
        var definition = ServiceDefinition(
            name: name, schema: "ingest", migrations: IngestMigrations.track,
            // Erasure requests are made here; every service's confirmation comes back to count into their progress.
            consumedTopics: [.patients, .erasureConfirmations], handler: IngestHandler(),
            // Hospital pipelines' result feeds on Kafka: the same checks and storage as the HTTP door.
            inbound: InboundTopics(topics: InboundResults.topics) { InboundResults(records: RecordRoutes(context: $0)) },
            careTeam: .owner, patientData: IngestPatientData.patientData,
            routes: { routes, context in
                let records = RecordRoutes(context: context)
                MeasurementRoutes(records: records).register(on: routes)
                MeasurementTemplates().register(on: routes)
                let meals = MealRoutes(records: records, catalogue: catalogue)
                meals.register(on: routes)
                SyncRoutes(records: records, meals: meals.definition).register(on: routes)
                FoodRoutes(catalogue: catalogue).register(on: routes)
                ClinicalInputRoutes(records: records).register(on: routes)
                ExamResultRoutes(records: records).register(on: routes)
                ReleaseRoutes(records: records).register(on: routes)
                HL7v2Routes(records: records).register(on: routes)
                FHIRRoutes(records: records).register(on: routes)
                InstitutionPatientRoutes(records: records).register(on: routes)
                CareTeamRoutes(context: context).register(on: routes)
                EnvironmentRoutes(context: context).register(on: routes)
                EnvironmentReads(context: context).register(on: routes)
                PhotoRoutes(context: context, checker: checker, links: links).register(on: routes)
                ProfileRoutes(context: context).register(on: routes)
                ErasureRoutes(context: context).register(on: routes)
                ExportRoutes(context: context, settings: exports).register(on: routes)
            },
            backgroundServices: { context in
                [
                    TombstonePurge.job(settings: sync, context: context), ExamRelease.job(interval: releaseCheck, context: context),
                    catalogue.refreshJob(interval: foodTableCheck, context: context),
                    ExportStore.purgeJob(interval: exports.purgeInterval, context: context),
                ]
            })
        // Its writes take the patient's change number first, which marks an erased patient (`ErasureStore`): the single
        // POST, its hottest path, asks nothing more.
        definition.erasedPatientWrites = .refusedByTheServiceItself
        return definition
    }
}
