import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// ingest-service: accepts measurements from patients and institutions over HTTP, stores each once, and announces it
/// on `caretide.measurements` through the outbox.
public enum IngestService {
    public static let name = "ingest-service"
    public static let defaultPort = 8080

    public static var definition: ServiceDefinition {
        ServiceDefinition(name: name, schema: "ingest", migrations: IngestMigrations.track) { router, context in
            BloodPressureRoutes(context: context).register(on: router)
        }
    }
}

enum IngestMigrations {
    static let track = MigrationTrack(name: "ingest", migrations: [
        Migration(version: 1, name: "blood pressure readings", statements: [
            """
            CREATE TABLE blood_pressure_readings (
                measurement_id uuid PRIMARY KEY,
                patient_id text NOT NULL,
                systolic integer NOT NULL,
                diastolic integer NOT NULL,
                taken_at timestamptz NOT NULL,
                source text NOT NULL,
                event_id uuid NOT NULL UNIQUE,
                received_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX blood_pressure_readings_by_patient ON blood_pressure_readings (patient_id, taken_at)",
        ]),
    ])
}
