import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// notification-service: consumes assessments, keeps each patient's alert inbox, and publishes alerts on
/// `caretide.alerts` for downstream consumers.
public enum NotificationService {
    public static let name = "notification-service"
    public static let defaultPort = 8082

    public static var definition: ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "notification", migrations: NotificationMigrations.track, consumedTopics: [.scores],
            handler: AssessmentAlertHandler()
        ) { router, context in
            InboxRoutes(context: context).register(on: router)
        }
    }
}

enum NotificationMigrations {
    static let track = MigrationTrack(name: "notification", migrations: [
        Migration(version: 1, name: "alerts inbox", statements: [
            """
            CREATE TABLE alerts (
                alert_id uuid PRIMARY KEY,
                source_event_id uuid NOT NULL UNIQUE,
                patient_id text,
                kind text NOT NULL,
                severity text NOT NULL,
                category text NOT NULL,
                message_key text NOT NULL,
                raised_at timestamptz NOT NULL,
                read_at timestamptz)
            """,
            "CREATE INDEX alerts_by_patient ON alerts (patient_id, raised_at)",
        ]),
    ])
}
