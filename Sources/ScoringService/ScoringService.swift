import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// scoring-service: consumes measurements, assesses them with the clinical rules of `CaretideDomain`, stores every
/// assessment (full history, never overwritten) and publishes it on `caretide.scores`.
public enum ScoringService {
    public static let name = "scoring-service"
    public static let defaultPort = 8081

    public static var definition: ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "scoring", migrations: ScoringMigrations.track, consumedTopics: [.measurements],
            handler: MeasurementHandler()
        ) { router, context in
            AssessmentRoutes(context: context).register(on: router)
        }
    }
}

enum ScoringMigrations {
    static let track = MigrationTrack(name: "scoring", migrations: [
        Migration(version: 1, name: "blood pressure assessments", statements: [
            """
            CREATE TABLE blood_pressure_assessments (
                assessment_id uuid PRIMARY KEY,
                source_event_id uuid NOT NULL UNIQUE,
                patient_id text,
                measurement_id uuid NOT NULL,
                taken_at timestamptz NOT NULL,
                systolic integer NOT NULL,
                diastolic integer NOT NULL,
                category text NOT NULL,
                severity text NOT NULL,
                tip text NOT NULL,
                rule_set_version text NOT NULL,
                assessed_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX blood_pressure_assessments_by_patient ON blood_pressure_assessments (patient_id, taken_at)",
        ]),
    ])
}
