import CaretideStore

/// notification-service's tables, in order: each migration says what it is for.
enum NotificationMigrations {
    static let track = MigrationTrack(
        name: "notification",
        migrations: [
            Migration(
                version: 1, name: "alerts inbox",
                statements: [
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
            Migration(
                version: 2, name: "alerts know what they are about and can be withdrawn",
                statements: [
                    "ALTER TABLE alerts ADD COLUMN about_id uuid",
                    "ALTER TABLE alerts ADD COLUMN withdrawn_at timestamptz",
                    "ALTER TABLE alerts ADD COLUMN withdrawal_reason text",
                    "CREATE INDEX alerts_by_subject ON alerts (about_id) WHERE withdrawn_at IS NULL",
                ]),
            // Every recipient's inbox: the patient's alerts become notifications for a recipient, beside those of the
            // patient's consultants, results ready and advice. One row per (source event, recipient).
            Migration(
                version: 3, name: "notifications per recipient",
                statements: [
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
            Migration(
                version: 4, name: "environmental alerts",
                statements: [
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
            // Reminders (`ReminderScheduler`): a schedule and the occurrence due next; a row per occurrence fired, whose key
            // makes firing one twice impossible. A rule's reminder (a melanoma risk category's self-check) is one per
            // patient, rule and topic.
            Migration(
                version: 5, name: "reminders",
                statements: [
                    """
                    CREATE TABLE reminders (
                        reminder_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        topic text NOT NULL,
                        note text,
                        repeats text NOT NULL,
                        starts_on text NOT NULL,
                        at_time text NOT NULL,
                        time_zone text NOT NULL,
                        dates text[] NOT NULL,
                        origin text NOT NULL,
                        next_index integer,
                        next_due_at timestamptz,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        cancelled_at timestamptz)
                    """,
                    "CREATE INDEX reminders_due ON reminders (next_due_at) WHERE next_due_at IS NOT NULL AND cancelled_at IS NULL",
                    "CREATE INDEX reminders_by_patient ON reminders (patient_id, created_at)",
                    "CREATE UNIQUE INDEX reminders_one_per_rule ON reminders (patient_id, origin, topic) WHERE origin <> 'patient' AND cancelled_at IS NULL",
                    """
                    CREATE TABLE reminder_occurrences (
                        reminder_id uuid NOT NULL REFERENCES reminders,
                        occurrence_index integer NOT NULL,
                        occurrence_id uuid NOT NULL UNIQUE,
                        due_at timestamptz NOT NULL,
                        fired_at timestamptz NOT NULL,
                        late boolean NOT NULL,
                        PRIMARY KEY (reminder_id, occurrence_index))
                    """,
                ]),
            // Each recipient's time zone and quiet hours, and the announcements held until those end.
            Migration(
                version: 6, name: "quiet hours",
                statements: [
                    """
                    CREATE TABLE recipient_preferences (
                        recipient_role text NOT NULL,
                        recipient_id text NOT NULL,
                        time_zone text NOT NULL,
                        quiet_from text,
                        quiet_to text,
                        updated_at timestamptz NOT NULL,
                        PRIMARY KEY (recipient_role, recipient_id))
                    """,
                    """
                    CREATE TABLE held_alerts (
                        alert_id uuid PRIMARY KEY,
                        patient_id text,
                        deliver_at timestamptz NOT NULL,
                        envelope jsonb NOT NULL)
                    """,
                    "CREATE INDEX held_alerts_due ON held_alerts (deliver_at)",
                ]),
            // Urgent findings waiting for a consultant's acknowledgement (`Escalation`).
            Migration(
                version: 7, name: "escalation of urgent findings",
                statements: [
                    """
                    CREATE TABLE escalations (
                        about_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        institution_id text,
                        kind text NOT NULL,
                        category text NOT NULL,
                        source_event_id uuid NOT NULL,
                        due_at timestamptz NOT NULL,
                        outcome text,
                        closed_at timestamptz)
                    """,
                    "CREATE INDEX escalations_due ON escalations (due_at) WHERE outcome IS NULL",
                ]),
            // The alerts topic's contract: each recipient's messages numbered without gaps (`NotificationDelivery`). A
            // notification's id is now made from its source and recipient, so its primary key is the uniqueness the
            // separate constraint kept: one index less to write per notification (a fan-out writes a hundred thousand).
            Migration(
                version: 8, name: "per-recipient message numbers",
                statements: [
                    "ALTER TABLE notifications DROP CONSTRAINT notifications_source_event_id_recipient_role_recipient_id_key",
                    """
                    CREATE TABLE recipient_sequences (
                        recipient_role text NOT NULL,
                        recipient_id text NOT NULL,
                        last_sequence bigint NOT NULL,
                        PRIMARY KEY (recipient_role, recipient_id))
                    """,
                ]),
            // Broadcasts to many inboxes, delivered in batches from where the last one stopped (`Broadcasts`).
            Migration(
                version: 9, name: "broadcasts",
                statements: [
                    """
                    CREATE TABLE broadcasts (
                        broadcast_id uuid PRIMARY KEY,
                        kind text NOT NULL,
                        text text NOT NULL,
                        audience text NOT NULL,
                        area_code text,
                        patient_ids text[] NOT NULL,
                        delivered_through text NOT NULL DEFAULT '',
                        delivered integer NOT NULL DEFAULT 0,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        completed_at timestamptz)
                    """,
                    "CREATE INDEX broadcasts_delivering ON broadcasts (created_at) WHERE completed_at IS NULL",
                ]),
            // Appointments (`Appointments`): one standing booking per slot, by the index, not by a check before the insert.
            Migration(
                version: 10, name: "appointments",
                statements: [
                    """
                    CREATE TABLE slots (
                        institution_id text NOT NULL,
                        slot_id text NOT NULL,
                        service text NOT NULL,
                        starts_at timestamptz NOT NULL,
                        ends_at timestamptz NOT NULL,
                        location text,
                        PRIMARY KEY (institution_id, slot_id))
                    """,
                    "CREATE INDEX slots_by_start ON slots (starts_at)",
                    """
                    CREATE TABLE appointments (
                        appointment_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        institution_id text NOT NULL,
                        slot_id text NOT NULL,
                        booked_at timestamptz NOT NULL DEFAULT now(),
                        cancelled_at timestamptz,
                        cancelled_by text,
                        FOREIGN KEY (institution_id, slot_id) REFERENCES slots)
                    """,
                    "CREATE UNIQUE INDEX appointments_one_per_slot ON appointments (institution_id, slot_id) WHERE cancelled_at IS NULL",
                    "CREATE INDEX appointments_by_patient ON appointments (patient_id)",
                ]),
            // Webhooks per recipient group (`Webhooks`): every message to the group leaves for the receiver's URL too,
            // signed, retried with backoff, and kept as a dead letter after the last try.
            Migration(
                version: 11, name: "webhooks",
                statements: [
                    """
                    CREATE TABLE webhooks (
                        webhook_id uuid PRIMARY KEY,
                        recipient_role text NOT NULL,
                        url text NOT NULL,
                        secret text NOT NULL,
                        include_text boolean NOT NULL,
                        description text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        disabled_at timestamptz)
                    """,
                    "CREATE INDEX webhooks_active ON webhooks (recipient_role) WHERE disabled_at IS NULL",
                    """
                    CREATE TABLE webhook_deliveries (
                        webhook_id uuid NOT NULL REFERENCES webhooks,
                        event_id uuid NOT NULL,
                        event_type text NOT NULL,
                        alert_id uuid NOT NULL,
                        recipient_id text NOT NULL,
                        body text NOT NULL,
                        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead', 'cancelled')),
                        attempts integer NOT NULL DEFAULT 0,
                        next_attempt_at timestamptz NOT NULL DEFAULT now(),
                        last_status integer,
                        last_error text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        finished_at timestamptz,
                        PRIMARY KEY (webhook_id, event_id))
                    """,
                    "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
                    "CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (webhook_id, status, created_at DESC)",
                ]),
            // Sending a report: a shared report's signed link rides its notification to the consultant's inbox (never
            // the topic); the patient's doctor's address and each report e-mail with its delivery status (`Mail/`).
            Migration(
                version: 12, name: "report sharing and e-mail",
                statements: [
                    "ALTER TABLE notifications ADD COLUMN link text",
                    """
                    CREATE TABLE doctor_contacts (
                        patient_id text PRIMARY KEY,
                        email text NOT NULL,
                        updated_at timestamptz NOT NULL DEFAULT now())
                    """,
                    """
                    CREATE TABLE report_emails (
                        email_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        recipient text NOT NULL,
                        period_from timestamptz NOT NULL,
                        period_to timestamptz NOT NULL,
                        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
                        attempts integer NOT NULL DEFAULT 0,
                        next_attempt_at timestamptz NOT NULL DEFAULT now(),
                        last_error text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        finished_at timestamptz)
                    """,
                    "CREATE INDEX report_emails_due ON report_emails (next_attempt_at) WHERE status = 'queued'",
                    "CREATE INDEX report_emails_by_patient ON report_emails (patient_id, created_at DESC, email_id DESC)",
                ]),
            // A reminder the patient paused (`ReminderStore.pause`): due at no time until resumed.
            Migration(version: 13, name: "paused reminders", statements: ["ALTER TABLE reminders ADD COLUMN paused_at timestamptz"]),
            // The assessment whose rule set a reminder (a melanoma category's self-check): withdrawing that
            // assessment cancels the reminder (`ReminderStore.cancel(setBy:)`).
            Migration(version: 14, name: "reminders set by an assessment", statements: ["ALTER TABLE reminders ADD COLUMN set_by uuid"]),
            // Conversations between a patient and one consultant of their care team (`ThreadStore`). The text is
            // kept here alone: never on a topic, in a log or a metric.
            Migration(
                version: 15, name: "care team threads",
                statements: [
                    """
                    CREATE TABLE care_threads (
                        thread_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        consultant_id text NOT NULL,
                        subject text NOT NULL,
                        started_by text NOT NULL CHECK (started_by IN ('patient', 'consultant')),
                        started_at timestamptz NOT NULL DEFAULT now(),
                        last_message_at timestamptz NOT NULL DEFAULT now())
                    """,
                    "CREATE INDEX care_threads_patient ON care_threads (patient_id, last_message_at DESC, thread_id)",
                    "CREATE INDEX care_threads_consultant ON care_threads (consultant_id, last_message_at DESC, thread_id)",
                    """
                    CREATE TABLE care_messages (
                        message_id uuid PRIMARY KEY,
                        thread_id uuid NOT NULL REFERENCES care_threads ON DELETE CASCADE,
                        sender_role text NOT NULL CHECK (sender_role IN ('patient', 'consultant')),
                        sender_id text NOT NULL,
                        text text NOT NULL CHECK (char_length(text) <= 4000),
                        sent_at timestamptz NOT NULL DEFAULT now(),
                        read_at timestamptz)
                    """,
                    "CREATE INDEX care_messages_thread ON care_messages (thread_id, sent_at, message_id)",
                ]),
            // Information pages (`ArticleStore`): every version of each article in each language, as written and as
            // served (sanitised HTML, plain text), with its reviewer; and which tip of the day each reader was shown.
            Migration(
                version: 16, name: "information pages",
                statements: [
                    """
                    CREATE TABLE articles (
                        article_id text NOT NULL,
                        language text NOT NULL,
                        version integer NOT NULL CHECK (version > 0),
                        topic text NOT NULL,
                        kind text NOT NULL CHECK (kind IN ('article', 'tip')),
                        title text NOT NULL,
                        markdown text NOT NULL,
                        html text NOT NULL,
                        plain text NOT NULL,
                        reviewer text NOT NULL,
                        reviewed_on date NOT NULL,
                        next_review_on date,
                        published_by text NOT NULL,
                        published_at timestamptz NOT NULL DEFAULT now(),
                        words tsvector GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || plain)) STORED,
                        PRIMARY KEY (article_id, language, version))
                    """,
                    "CREATE INDEX articles_words ON articles USING gin (words)",
                    "CREATE INDEX articles_topic ON articles (topic, language)",
                    """
                    CREATE TABLE tips_shown (
                        recipient_id text NOT NULL,
                        recipient_role text NOT NULL,
                        shown_on date NOT NULL,
                        article_id text NOT NULL,
                        PRIMARY KEY (recipient_id, recipient_role, shown_on))
                    """,
                ]),
            // Alert fatigue's question (`NotificationStore.AlertedToday`) names all five columns. With only the inbox's
            // and withdrawals' indexes, the prepared statement's generic plan, made while the table was nearly empty,
            // walked the whole of `notifications_about` for every recipient asked, and kept doing so as the table grew
            // until an ANALYZE replanned it (BENCHMARKS.md, "Fewer round trips").
            Migration(
                version: 17, name: "alert fatigue's index",
                statements: [
                    """
                    CREATE INDEX notifications_fatigue ON notifications (recipient_id, recipient_role, patient_id, kind, category, created_at)
                    WHERE withdrawn_at IS NULL
                    """
                ]),
            // Until the first ANALYZE of `notifications`, the planner has no statistics for `withdrawn_at` and takes 0.5 %
            // of rows to be standing (`withdrawn_at IS NULL`), so any index with that predicate looks a page long. Alert
            // fatigue's question, which implies the predicate, then still chose to walk all of `notifications_about` (no
            // index condition) over `notifications_fatigue` at equal cost, the largest share of all statement time
            // (BENCHMARKS.md). Withdrawals by `about_id` name it, and `about_id = $1` implies
            // `about_id IS NOT NULL`; alert fatigue's question does not, so that index is no longer a choice for it.
            Migration(
                version: 18, name: "withdrawals' index only for a subject",
                statements: [
                    "DROP INDEX notifications_about",
                    "CREATE INDEX notifications_about ON notifications (about_id) WHERE withdrawn_at IS NULL AND about_id IS NOT NULL",
                ]),
            Migration(
                version: 19, name: "skin-photo follow-ups and their findings",
                statements: [
                    """
                    CREATE TABLE lesion_follow_ups (
                        follow_up_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        photo_id text NOT NULL,
                        category text NOT NULL,
                        stage text NOT NULL,
                        stage_started_at timestamptz NOT NULL,
                        due_at timestamptz NOT NULL,
                        reminders_sent integer NOT NULL DEFAULT 0,
                        next_step_at timestamptz,
                        appointment_id uuid,
                        escalated_at timestamptz,
                        opened_at timestamptz NOT NULL,
                        closed_at timestamptz,
                        outcome text)
                    """,
                    // One open follow-up a photo: a rescored answer keeps the clock the first one started.
                    "CREATE UNIQUE INDEX lesion_follow_ups_open ON lesion_follow_ups (patient_id, photo_id) WHERE closed_at IS NULL",
                    "CREATE INDEX lesion_follow_ups_due ON lesion_follow_ups (next_step_at) WHERE closed_at IS NULL AND appointment_id IS NULL",
                    "CREATE INDEX lesion_follow_ups_by_patient ON lesion_follow_ups (patient_id, opened_at)",
                    "CREATE INDEX lesion_follow_ups_by_appointment ON lesion_follow_ups (appointment_id) WHERE appointment_id IS NOT NULL",
                    """
                    CREATE TABLE lesion_follow_up_findings (
                        follow_up_id uuid NOT NULL REFERENCES lesion_follow_ups ON DELETE CASCADE,
                        patient_id text NOT NULL,
                        stage text NOT NULL,
                        finding text NOT NULL,
                        consultant_id text NOT NULL,
                        recorded_at timestamptz NOT NULL,
                        PRIMARY KEY (follow_up_id, stage))
                    """,
                ]),
            // A report e-mail in the patient's words, to an address of their choosing, linking to an outside share; the
            // PDF only when the patient asks for it.
            Migration(
                version: 20, name: "report e-mails in the patient's words",
                statements: [
                    "ALTER TABLE report_emails ADD COLUMN subject text, ADD COLUMN message text, ADD COLUMN share_id uuid, ADD COLUMN attach_pdf boolean NOT NULL DEFAULT false"
                ]),
        ])
}
