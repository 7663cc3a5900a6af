import CaretideStore

/// ingest-service's tables, in order: each migration says what it is for.
enum IngestMigrations {
    static let track = MigrationTrack(
        name: "ingest",
        migrations: [
            Migration(
                version: 1, name: "blood pressure readings",
                statements: [
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
            Migration(
                version: 2, name: "records with revisions",
                statements: [
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
            // Offline sync (`SyncRoutes`): every change of a patient's records takes the patient's next change number
            // while holding the patient's counter row until commit, so one patient's numbers follow commit order and a
            // feed read never skips a change that commits late. A record keeps only its newest number (a device needs
            // the newest state) and, when deleted, stays as a tombstone until `TombstonePurge` removes it.
            Migration(
                version: 3, name: "change numbers for offline sync",
                statements: [
                    """
                    CREATE TABLE patient_changes (
                        patient_id text PRIMARY KEY,
                        last_seq bigint NOT NULL,
                        purged_through bigint NOT NULL DEFAULT 0)
                    """,
                    "ALTER TABLE records ADD COLUMN change_seq bigint",
                    "ALTER TABLE records ADD COLUMN client_updated_at timestamptz",
                    """
                    UPDATE records r SET change_seq = n.seq FROM (
                        SELECT record_type, record_id,
                               row_number() OVER (PARTITION BY patient_id ORDER BY updated_at, record_type, record_id) AS seq
                        FROM records) n
                    WHERE r.record_type = n.record_type AND r.record_id = n.record_id
                    """,
                    "INSERT INTO patient_changes (patient_id, last_seq) SELECT patient_id, max(change_seq) FROM records GROUP BY patient_id",
                    "ALTER TABLE records ALTER COLUMN change_seq SET NOT NULL",
                    "CREATE INDEX records_changes ON records (patient_id, change_seq)",
                    "CREATE INDEX records_tombstones ON records (deleted_at) WHERE deleted_at IS NOT NULL",
                    // The devices that read a patient's feed, and how far each has read: tombstones every one of them has
                    // passed can go before the retention period ends.
                    """
                    CREATE TABLE sync_devices (
                        patient_id text NOT NULL,
                        device_id text NOT NULL,
                        synced_through bigint NOT NULL,
                        last_seen timestamptz NOT NULL,
                        PRIMARY KEY (patient_id, device_id))
                    """,
                ]),
            // Environmental feeds (`EnvironmentRoutes`): areas first, then their readings, one per area, kind and time.
            Migration(
                version: 4, name: "areas and environmental readings",
                statements: [
                    """
                    CREATE TABLE areas (
                        area_code text PRIMARY KEY,
                        name text NOT NULL,
                        latitude double precision NOT NULL,
                        longitude double precision NOT NULL,
                        time_zone text NOT NULL,
                        registered_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now())
                    """,
                    """
                    CREATE TABLE environment_readings (
                        area_code text NOT NULL REFERENCES areas,
                        kind text NOT NULL,
                        observed_at timestamptz NOT NULL,
                        body jsonb NOT NULL,
                        event_id uuid NOT NULL,
                        received_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (area_code, kind, observed_at))
                    """,
                ]),
            // Release rules (`ReleasePolicy`): an institution's rules as one document, and each exam report's release state.
            Migration(
                version: 5, name: "exam report release",
                statements: [
                    "CREATE TABLE release_rules (institution_id text PRIMARY KEY, rules jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())",
                    """
                    CREATE TABLE report_releases (
                        record_id text PRIMARY KEY,
                        patient_id text NOT NULL,
                        revision integer NOT NULL,
                        decision text NOT NULL,
                        release_at timestamptz,
                        hold_reason text,
                        released_revision integer,
                        released_at timestamptz)
                    """,
                    // The release job's question: which delayed reports are due and not yet released at their revision.
                    "CREATE INDEX report_releases_due ON report_releases (release_at) WHERE decision = 'after'",
                ]),
            // The food table (`FoodStore`): each import is a release; replicas serve the newest (`FoodCatalogue`). Values
            // per 100 g, NULL where the table gives none; portions as the table lists them.
            Migration(
                version: 6, name: "food table releases",
                statements: [
                    """
                    CREATE TABLE food_releases (
                        release_number bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                        source_id text NOT NULL,
                        name text NOT NULL,
                        licence text NOT NULL,
                        source text NOT NULL,
                        food_count integer NOT NULL,
                        imported_at timestamptz NOT NULL DEFAULT now())
                    """,
                    """
                    CREATE TABLE foods (
                        release_number bigint NOT NULL REFERENCES food_releases ON DELETE CASCADE,
                        food_id text NOT NULL,
                        name text NOT NULL,
                        category text NOT NULL,
                        energy_kcal double precision,
                        protein_g double precision,
                        fat_g double precision,
                        saturated_fat_g double precision,
                        carbohydrate_g double precision,
                        sugars_g double precision,
                        fibre_g double precision,
                        sodium_mg double precision,
                        portions jsonb NOT NULL,
                        PRIMARY KEY (release_number, food_id))
                    """,
                ]),
            // Skin photos (`PhotoStore`): the checked file without its identifying metadata, its thumbnail, and the
            // digest of the bytes sent (the same upload again is a duplicate). Photos do not compress: stored out of
            // line without trying.
            Migration(
                version: 7, name: "lesion photos",
                statements: [
                    """
                    CREATE TABLE lesion_photos (
                        photo_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        body_site text NOT NULL,
                        side text,
                        taken_at timestamptz NOT NULL,
                        recorded_at timestamptz NOT NULL DEFAULT now(),
                        sent_format text NOT NULL,
                        media_type text NOT NULL,
                        width integer NOT NULL,
                        height integer NOT NULL,
                        sharpness double precision NOT NULL,
                        sent_sha256 bytea NOT NULL,
                        image bytea NOT NULL CHECK (octet_length(image) <= 33554432),
                        thumbnail bytea NOT NULL CHECK (octet_length(thumbnail) <= 1048576))
                    """,
                    "ALTER TABLE lesion_photos ALTER COLUMN image SET STORAGE EXTERNAL",
                    "ALTER TABLE lesion_photos ALTER COLUMN thumbnail SET STORAGE EXTERNAL",
                    "CREATE INDEX lesion_photos_timeline ON lesion_photos (patient_id, body_site, side, taken_at, photo_id)",
                ]),
            Migration(
                version: 8, name: "patient profiles",
                statements: [
                    // Every change is a row; the newest is the profile (ProfileStore). PHI: read by the profile's
                    // routes and the patient's released reports alone.
                    """
                    CREATE TABLE patient_profile_revisions (
                        patient_id text NOT NULL,
                        revision integer NOT NULL CHECK (revision > 0),
                        profile jsonb NOT NULL,
                        source jsonb NOT NULL,
                        changed_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (patient_id, revision))
                    """
                ]),
            // Erasure requests (`ErasureStore`): one per patient, the services' confirmations, and the mark on the
            // patient's change counter that refuses their writes from then on. Ids and times only.
            Migration(
                version: 9, name: "erasure requests",
                statements: [
                    """
                    CREATE TABLE patient_erasures (
                        erasure_id uuid PRIMARY KEY,
                        patient_id text NOT NULL UNIQUE,
                        requested_by text NOT NULL CHECK (requested_by IN ('patient', 'operator')),
                        requested_at timestamptz NOT NULL)
                    """,
                    """
                    CREATE TABLE patient_erasure_confirmations (
                        erasure_id uuid NOT NULL REFERENCES patient_erasures,
                        service text NOT NULL,
                        erased_at timestamptz NOT NULL,
                        PRIMARY KEY (erasure_id, service))
                    """,
                    "ALTER TABLE patient_changes ADD COLUMN erased_at timestamptz",
                ]),
            // Patients' exports (`ExportStore`): the JSON document and the FHIR Bundle a job assembled, until they expire.
            Migration(
                version: 10, name: "patient exports",
                statements: [
                    """
                    CREATE TABLE patient_exports (
                        export_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        status text NOT NULL CHECK (status IN ('assembling', 'ready', 'failed')),
                        requested_at timestamptz NOT NULL,
                        ready_at timestamptz,
                        expires_at timestamptz,
                        failure text,
                        document bytea,
                        bundle bytea)
                    """,
                    "CREATE INDEX patient_exports_by_patient ON patient_exports (patient_id)",
                    "CREATE INDEX patient_exports_expiry ON patient_exports (expires_at)",
                ]),
            // No statistics for the records' bodies: no question filters on them, and sampling JSON documents was most
            // of what ANALYZE of scoring's `assessments` cost (scoring's migration 11); `records` is analysed as often.
            Migration(
                version: 11, name: "no statistics for record bodies",
                statements: [Migration.statisticsTarget(0, table: "records", columns: ["body"])]),
            // A sample of 3,000 rows, not 30,000, as for scoring's assessments (its migration 12): records are asked
            // for by key, by patient and by change number, and ANALYZE at the default target took 0.15 s of CPU
            // every 5 to 10 s while a fresh table grew under load. A new column must be given the same target
            // (StatisticsSampleTests checks every column).
            Migration(
                version: 12, name: "a small statistics sample for records",
                statements: [
                    Migration.statisticsTarget(
                        10, table: "records",
                        columns: [
                            "record_type", "record_id", "patient_id", "revision", "observed_at", "deleted_at", "last_event_id", "created_at",
                            "updated_at", "change_seq", "client_updated_at",
                        ])
                ]),
            // Institutions' patients (`InstitutionPatientStore`): each institution's registration of a patient under its
            // own id, its activation code's digest and the Caretide patient it is linked to; the reports that wait for
            // that link; the reports patients said are not theirs; patients' failed redemptions, for their limit.
            Migration(
                version: 13, name: "institutions' patients and their links",
                statements: [
                    """
                    CREATE TABLE institution_patients (
                        institution_id text NOT NULL,
                        institution_patient_id text NOT NULL,
                        name text,
                        sex text NOT NULL,
                        birth_date text NOT NULL,
                        registered_at timestamptz NOT NULL,
                        code_digest bytea NOT NULL UNIQUE,
                        code_expires_at timestamptz NOT NULL,
                        code_failures integer NOT NULL DEFAULT 0,
                        code_redeemed_at timestamptz,
                        patient_id text,
                        linked_at timestamptz,
                        PRIMARY KEY (institution_id, institution_patient_id))
                    """,
                    "CREATE INDEX institution_patients_by_patient ON institution_patients (patient_id) WHERE patient_id IS NOT NULL",
                    """
                    CREATE TABLE waiting_exam_results (
                        institution_id text NOT NULL,
                        exam_id text NOT NULL,
                        institution_patient_id text NOT NULL,
                        body jsonb NOT NULL,
                        received_at timestamptz NOT NULL,
                        PRIMARY KEY (institution_id, exam_id))
                    """,
                    "CREATE INDEX waiting_exam_results_by_patient ON waiting_exam_results (institution_id, institution_patient_id)",
                    // A patient's "this is not me" on a report: the institution reads it on the registration.
                    """
                    CREATE TABLE disputed_exam_results (
                        institution_id text NOT NULL,
                        exam_id text NOT NULL,
                        institution_patient_id text NOT NULL,
                        disputed_at timestamptz NOT NULL,
                        PRIMARY KEY (institution_id, exam_id))
                    """,
                    "CREATE INDEX disputed_exam_results_by_patient ON disputed_exam_results (institution_id, institution_patient_id)",
                    "CREATE TABLE link_redemption_failures (patient_id text NOT NULL, failed_at timestamptz NOT NULL)",
                    "CREATE INDEX link_redemption_failures_by_patient ON link_redemption_failures (patient_id, failed_at)",
                ]),
        ])
}
