import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// notification-service: turns assessments that need attention into alerts in the patient's inbox and on
/// `caretide.alerts`, and withdraws alerts whose assessment was superseded, deleted or entered in error, so that no
/// downstream consumer keeps acting on a retracted value.
public enum NotificationService {
    public static let name = "notification-service"
    public static let defaultPort = 8082

    public static var definition: ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "notification", migrations: NotificationMigrations.track, consumedTopics: [.scores],
            handler: AlertHandler(), careTeam: .projection
        ) { routes, context in
            InboxRoutes(context: context).register(on: routes)
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
        Migration(version: 2, name: "alerts know what they are about and can be withdrawn", statements: [
            "ALTER TABLE alerts ADD COLUMN about_id uuid",
            "ALTER TABLE alerts ADD COLUMN withdrawn_at timestamptz",
            "ALTER TABLE alerts ADD COLUMN withdrawal_reason text",
            "CREATE INDEX alerts_by_subject ON alerts (about_id) WHERE withdrawn_at IS NULL",
        ]),
    ])
}
