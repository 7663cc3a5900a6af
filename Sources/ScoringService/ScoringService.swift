public import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// scoring-service: assesses measurements, NPI inputs, melanoma risk profiles and exam reports with the clinical rules,
/// keeps every assessment (full history, never overwritten: corrections supersede, deletions withdraw), watches each
/// patient's series for trends, and publishes all of it on `caretide.scores`.
public enum ScoringService {
    public static let name = "scoring-service"
    public static let defaultPort = 8081

    public static var definition: ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "scoring", migrations: ScoringMigrations.track,
            consumedTopics: [.measurements, .npi, .riskProfiles, .examResults], handler: ScoringHandler(), careTeam: .projection
        ) { routes, context in
            AssessmentRoutes(context: context).register(on: routes)
            ClinicalHistoryRoutes(context: context).register(on: routes)
        }
    }
}
