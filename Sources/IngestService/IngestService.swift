public import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation

/// ingest-service: accepts measurements and clinical inputs from patients and institutions over HTTP, stores each
/// once (with its corrections as revisions), refuses values the clinical rules cannot assess, and announces every
/// change through the outbox.
public enum IngestService {
    public static let name = "ingest-service"
    public static let defaultPort = 8080

    public static var definition: ServiceDefinition { definition(sync: SyncSettings()) }

    /// - Parameter releaseCheck: how often delayed exam reports are looked at for release.
    public static func definition(sync: SyncSettings, releaseCheck: Duration = .seconds(30)) -> ServiceDefinition {
        // Patients grant and revoke here, so ingest-service writes the grants it checks itself.
        ServiceDefinition(
            name: name, schema: "ingest", migrations: IngestMigrations.track,
            // Hospital pipelines' result feeds on Kafka: the same checks and storage as the HTTP door.
            inbound: InboundTopics(topics: InboundResults.topics) { InboundResults(records: RecordRoutes(context: $0)) },
            careTeam: .owner,
            routes: { routes, context in
                let records = RecordRoutes(context: context)
                MeasurementRoutes(records: records).register(on: routes)
                SyncRoutes(records: records).register(on: routes)
                ClinicalInputRoutes(records: records).register(on: routes)
                ExamResultRoutes(records: records).register(on: routes)
                ReleaseRoutes(records: records).register(on: routes)
                HL7v2Routes(records: records).register(on: routes)
                FHIRRoutes(records: records).register(on: routes)
                CareTeamRoutes(context: context).register(on: routes)
                EnvironmentRoutes(context: context).register(on: routes)
                EnvironmentReads(context: context).register(on: routes)
            },
            backgroundServices: { context in
                [TombstonePurge.job(settings: sync, context: context), ExamRelease.job(interval: releaseCheck, context: context)]
            })
    }
}
