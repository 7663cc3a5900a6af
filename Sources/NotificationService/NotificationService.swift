import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// notification-service: turns what scoring finds and what ingest releases into notifications in each recipient's
/// inbox (the patient's, and the consultants' of the patient's care team) and on `caretide.alerts`, and withdraws
/// those whose source was superseded, deleted or entered in error, so that no downstream consumer keeps acting on a
/// retracted value.
public enum NotificationService {
    public static let name = "notification-service"
    public static let defaultPort = 8082

    public static var definition: ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "notification", migrations: NotificationMigrations.track, consumedTopics: [.scores, .examResults, .environment],
            handler: AlertHandler(), careTeam: .projection
        ) { routes, context in
            InboxRoutes(context: context).register(on: routes)
            AdviceRoutes(context: context).register(on: routes)
            SubscriptionRoutes(context: context).register(on: routes)
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
        // Every recipient's inbox: the patient's alerts become notifications for a recipient, beside those of the
        // patient's consultants, results ready and advice. One row per (source event, recipient).
        Migration(version: 3, name: "notifications per recipient", statements: [
            """
            CREATE TABLE notifications (
                notification_id uuid PRIMARY KEY,
                recipient_id text NOT NULL,
                recipient_role text NOT NULL,
                patient_id text,
                kind text NOT NULL,
                severity text NOT NULL,
                category text NOT NULL,
                message_key text NOT NULL,
                text text,
                out_of_range_count integer,
                about_id uuid,
                subject_id text,
                source_event_id uuid NOT NULL,
                created_at timestamptz NOT NULL,
                read_at timestamptz,
                acknowledged_at timestamptz,
                withdrawn_at timestamptz,
                withdrawal_reason text,
                UNIQUE (source_event_id, recipient_role, recipient_id))
            """,
            """
            INSERT INTO notifications (notification_id, recipient_id, recipient_role, patient_id, kind, severity, category, message_key, about_id,
                                       source_event_id, created_at, read_at, withdrawn_at, withdrawal_reason)
            SELECT alert_id, patient_id, 'patient', patient_id, kind, severity, category, message_key, about_id, source_event_id, raised_at, read_at,
                   withdrawn_at, withdrawal_reason
            FROM alerts WHERE patient_id IS NOT NULL
            """,
            "DROP TABLE alerts",
            "CREATE INDEX notifications_inbox ON notifications (recipient_id, recipient_role, created_at DESC, notification_id DESC)",
            "CREATE INDEX notifications_about ON notifications (about_id) WHERE withdrawn_at IS NULL",
            "CREATE INDEX notifications_subject ON notifications (subject_id) WHERE withdrawn_at IS NULL AND subject_id IS NOT NULL",
            // Whether a consultant may see what the inbox says about a patient: the grant is in force now.
            """
            CREATE FUNCTION grant_in_force(patient text, consultant text) RETURNS boolean LANGUAGE sql STABLE AS $$
                SELECT EXISTS (SELECT 1 FROM care_team_grants g WHERE g.patient_id = patient AND g.consultant_id = consultant
                               AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > now()))
            $$
            """,
        ]),
        // UV and air-quality alerts: notification's copy of the areas, the patients' subscriptions, and each
        // subscription's alert-fatigue state per kind (`EnvironmentAlertState`).
        Migration(version: 4, name: "environmental alerts", statements: [
            """
            CREATE TABLE areas (
                area_code text PRIMARY KEY,
                name text NOT NULL,
                latitude double precision NOT NULL,
                longitude double precision NOT NULL,
                time_zone text NOT NULL)
            """,
            """
            CREATE TABLE environment_subscriptions (
                patient_id text NOT NULL,
                area_code text NOT NULL REFERENCES areas,
                uv_index boolean NOT NULL,
                air_quality boolean NOT NULL,
                uv_index_threshold double precision,
                aqi_threshold integer,
                fitzpatrick_skin_type integer,
                conditions text[] NOT NULL,
                updated_at timestamptz NOT NULL,
                PRIMARY KEY (patient_id, area_code))
            """,
            "CREATE INDEX environment_subscriptions_by_area ON environment_subscriptions (area_code, patient_id)",
            """
            CREATE TABLE environment_alert_states (
                patient_id text NOT NULL,
                area_code text NOT NULL,
                kind text NOT NULL,
                state jsonb NOT NULL,
                last_observed_at timestamptz NOT NULL,
                PRIMARY KEY (patient_id, area_code, kind))
            """,
            "ALTER TABLE notifications ADD COLUMN area_code text",
            "ALTER TABLE notifications ADD COLUMN value double precision",
            "ALTER TABLE notifications ADD COLUMN peak_at timestamptz",
        ]),
    ])
}
