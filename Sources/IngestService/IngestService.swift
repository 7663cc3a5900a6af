import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// ingest-service: accepts measurements and clinical inputs from patients and institutions over HTTP, stores each
/// once (with its corrections as revisions), refuses values the clinical rules cannot assess, and announces every
/// change through the outbox.
public enum IngestService {
    public static let name = "ingest-service"
    public static let defaultPort = 8080

    public static var definition: ServiceDefinition {
        // Patients grant and revoke here, so ingest-service writes the grants it checks itself.
        ServiceDefinition(name: name, schema: "ingest", migrations: IngestMigrations.track, careTeam: .owner) { routes, context in
            let records = RecordRoutes(context: context)
            MeasurementRoutes(records: records).register(on: routes)
            ClinicalInputRoutes(records: records).register(on: routes)
            ExamResultRoutes(records: records).register(on: routes)
            CareTeamRoutes(context: context).register(on: routes)
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
        // Every kind of input is a record with revisions: one table, one set of idempotency and correction rules.
        Migration(version: 2, name: "records with revisions", statements: [
            """
            CREATE TABLE records (
                record_type text NOT NULL,
                record_id text NOT NULL,
                patient_id text NOT NULL,
                revision integer NOT NULL,
                body jsonb NOT NULL,
                observed_at timestamptz NOT NULL,
                deleted_at timestamptz,
                last_event_id uuid NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (record_type, record_id))
            """,
            "CREATE INDEX records_by_patient ON records (patient_id, record_type, observed_at)",
            """
            INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id, created_at, updated_at)
            SELECT 'measurement:blood-pressure', measurement_id::text, patient_id, 1,
                   jsonb_build_object('measurementId', measurement_id, 'systolic', systolic, 'diastolic', diastolic,
                                      'takenAt', to_char(taken_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'source', source),
                   taken_at, event_id, received_at, received_at
            FROM blood_pressure_readings
            """,
            "DROP TABLE blood_pressure_readings",
        ]),
    ])
}
