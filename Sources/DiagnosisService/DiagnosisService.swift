import CaretideRuntime
import CaretideStore

/// diagnosis-service: Human Phenotype Ontology search and Phenomizer ranking. This foundation runs its runtime
/// (database schema, health, readiness, metrics); the ontology and ranking arrive with their own issue.
public enum DiagnosisService {
    public static let name = "diagnosis-service"
    public static let defaultPort = 8083

    public static var definition: ServiceDefinition {
        ServiceDefinition(name: name, schema: "diagnosis", migrations: DiagnosisMigrations.track)
    }
}

enum DiagnosisMigrations {
    static let track = MigrationTrack(name: "diagnosis", migrations: [])
}
