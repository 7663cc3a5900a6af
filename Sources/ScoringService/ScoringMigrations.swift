import CaretideStore

enum ScoringMigrations {
    static let track = MigrationTrack(
        name: "scoring",
        migrations: [
            Migration(
                version: 1, name: "blood pressure assessments",
                statements: [
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
            // One table for every kind of assessment, with provenance (rule set version and the exact inputs) and history.
            Migration(
                version: 2, name: "assessments of every kind, care-tracking flags",
                statements: [
                    """
                    CREATE TABLE assessments (
                        assessment_id uuid PRIMARY KEY,
                        source_event_id uuid NOT NULL UNIQUE,
                        source_event_type text NOT NULL,
                        patient_id text NOT NULL,
                        kind text NOT NULL,
                        subject_id text NOT NULL,
                        subject_revision integer NOT NULL,
                        category text NOT NULL,
                        severity text NOT NULL,
                        tip text NOT NULL,
                        rule_set_version text NOT NULL,
                        observed_at timestamptz NOT NULL,
                        inputs jsonb NOT NULL,
                        result jsonb NOT NULL,
                        assessed_at timestamptz NOT NULL DEFAULT now(),
                        superseded_by uuid,
                        withdrawn_at timestamptz,
                        withdrawal_reason text)
                    """,
                    "CREATE INDEX assessments_by_patient ON assessments (patient_id, kind, observed_at)",
                    "CREATE INDEX assessments_by_time ON assessments (assessed_at)",
                    // At most one standing assessment per subject: the newest revision, unless withdrawn.
                    """
                    CREATE UNIQUE INDEX assessments_one_standing_per_subject ON assessments (patient_id, kind, subject_id)
                    WHERE superseded_by IS NULL AND withdrawn_at IS NULL
                    """,
                    """
                    CREATE TABLE care_tracking_flags (
                        flag_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        rule text NOT NULL,
                        pattern_key text NOT NULL,
                        triggering_assessment_id uuid NOT NULL,
                        first_observed_at timestamptz NOT NULL,
                        last_observed_at timestamptz NOT NULL,
                        raised_at timestamptz NOT NULL DEFAULT now(),
                        UNIQUE (patient_id, rule, pattern_key))
                    """,
                    """
                    INSERT INTO assessments (assessment_id, source_event_id, source_event_type, patient_id, kind, subject_id, subject_revision,
                        category, severity, tip, rule_set_version, observed_at, inputs, result, assessed_at)
                    SELECT assessment_id, source_event_id, 'blood-pressure.recorded', coalesce(patient_id, ''), 'bloodPressure', measurement_id::text, 1,
                        category, severity, tip, rule_set_version, taken_at,
                        jsonb_build_object('systolic', systolic, 'diastolic', diastolic), jsonb_build_object('systolic', systolic, 'diastolic', diastolic), assessed_at
                    FROM blood_pressure_assessments
                    """,
                    "DROP TABLE blood_pressure_assessments",
                ]),
            // A rescore under a new rule set assesses the same source event again: unique per event and rule set.
            Migration(
                version: 3, name: "one assessment per source event and rule set",
                statements: [
                    "ALTER TABLE assessments DROP CONSTRAINT assessments_source_event_id_key",
                    "ALTER TABLE assessments ADD CONSTRAINT assessments_source_event_rule_set_key UNIQUE (source_event_id, rule_set_version)",
                ]),
            // The trend rules read each patient's newest standing assessments of a kind.
            Migration(
                version: 4, name: "index of standing assessments by patient",
                statements: [
                    """
                    CREATE INDEX assessments_standing_by_patient ON assessments (patient_id, kind, observed_at DESC, assessed_at DESC)
                    WHERE superseded_by IS NULL AND withdrawn_at IS NULL
                    """
                ]),
            // The standing-assessment lookup names a subject. With the patient first, PostgreSQL took the by-patient index
            // instead and filtered every standing assessment of the patient (28 buffers a probe instead of 3).
            Migration(
                version: 5, name: "one standing assessment per subject, indexed by subject first",
                statements: [
                    "DROP INDEX assessments_one_standing_per_subject",
                    """
                    CREATE UNIQUE INDEX assessments_one_standing_per_subject ON assessments (subject_id, kind, patient_id)
                    WHERE superseded_by IS NULL AND withdrawn_at IS NULL
                    """,
                ]),
            // Which revisions of a patient's exam reports their institution released (`exam-result.released`): the
            // patient's report shows those alone, as ingest shows them.
            Migration(
                version: 6, name: "released exam-report revisions",
                statements: [
                    """
                    CREATE TABLE exam_releases (
                        patient_id text NOT NULL,
                        subject_id text NOT NULL,
                        revision int NOT NULL,
                        released_at timestamptz NOT NULL,
                        PRIMARY KEY (patient_id, subject_id, revision))
                    """
                ]),
            // The report's UV and air-quality section (`ReportEnvironmentStore`): the areas, each area's daily maxima (its
            // own calendar day), and which areas each patient follows, all from `caretide.environment`.
            Migration(
                version: 7, name: "areas patients follow, and their daily maxima",
                statements: [
                    "CREATE TABLE report_areas (area_code text PRIMARY KEY, name text NOT NULL, time_zone text NOT NULL)",
                    """
                    CREATE TABLE report_area_days (
                        area_code text NOT NULL,
                        day date NOT NULL,
                        uv_index_max double precision,
                        aqi_max integer,
                        PRIMARY KEY (area_code, day))
                    """,
                    """
                    CREATE TABLE report_followed_areas (
                        patient_id text NOT NULL,
                        area_code text NOT NULL,
                        following boolean NOT NULL,
                        changed_at timestamptz NOT NULL,
                        PRIMARY KEY (patient_id, area_code))
                    """,
                ]),
            // The diet analysis (`NutritionStore`): each meal as its event gave it (the newest revision; a deletion kept
            // as a mark, so a late revision cannot bring it back), and each patient's day analysed from them.
            Migration(
                version: 8, name: "meals and days of nutrition",
                statements: [
                    """
                    CREATE TABLE meal_entries (
                        patient_id text NOT NULL,
                        meal_id uuid NOT NULL,
                        revision integer NOT NULL,
                        day date NOT NULL,
                        eaten_at timestamptz NOT NULL,
                        time_zone text NOT NULL,
                        meal text NOT NULL,
                        food_id text NOT NULL,
                        food_name text NOT NULL,
                        food_release text NOT NULL,
                        grams double precision NOT NULL,
                        portion jsonb,
                        nutrients jsonb NOT NULL,
                        deleted boolean NOT NULL DEFAULT false,
                        PRIMARY KEY (patient_id, meal_id))
                    """,
                    "CREATE INDEX meal_entries_by_day ON meal_entries (patient_id, day) WHERE NOT deleted",
                    """
                    CREATE TABLE nutrition_days (
                        patient_id text NOT NULL,
                        day date NOT NULL,
                        analysis_id uuid NOT NULL,
                        meal_count integer NOT NULL,
                        totals jsonb NOT NULL,
                        incomplete text[] NOT NULL,
                        sodium_mg double precision NOT NULL,
                        first_eaten_at timestamptz,
                        last_eaten_at timestamptz,
                        analysed_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (patient_id, day))
                    """,
                ]),
            // The skin photos `caretide.photos` announced (`PhotoRegister`): a classifier's answer about any other is
            // refused.
            Migration(
                version: 9, name: "known photos",
                statements: ["CREATE TABLE known_photos (photo_id uuid PRIMARY KEY, patient_id text NOT NULL)"]),
            // Each patient's sex and date of birth from `patient-demographics.changed` (`DemographicsStore`): the
            // reference intakes of the diet analysis. Never a name.
            Migration(
                version: 10, name: "patient demographics",
                statements: [
                    """
                    CREATE TABLE patient_demographics (
                        patient_id text PRIMARY KEY,
                        sex text,
                        birth_date date,
                        profile_revision integer NOT NULL)
                    """
                ]),
            // No statistics for the documents: no question filters on them, and sampling 30,000 rows of JSON took
            // ANALYZE of `assessments` about a second, every few seconds while the table grows under load with
            // autovacuum looking every 5 s (docs/operations.md, "PostgreSQL settings").
            Migration(
                version: 11, name: "no statistics for assessment documents",
                statements: [Migration.statisticsTarget(0, table: "assessments", columns: ["inputs", "result"])]),
            // A sample of 3,000 rows, not 30,000: every question about assessments goes by a key or a patient, which a
            // small sample estimates as well (the plans did not change), and ANALYZE at the default target took 0.25 to
            // 0.5 s of CPU each time, every 5 to 10 s while a fresh table grew under load (BENCHMARKS.md, "A small
            // sample"). A new column must be given the same target (StatisticsSampleTests checks every column).
            Migration(
                version: 12, name: "a small statistics sample for assessments",
                statements: [
                    Migration.statisticsTarget(
                        10, table: "assessments",
                        columns: [
                            "assessment_id", "source_event_id", "source_event_type", "patient_id", "kind", "subject_id", "subject_revision",
                            "category", "severity", "tip", "rule_set_version", "observed_at", "assessed_at", "superseded_by", "withdrawn_at",
                            "withdrawal_reason",
                        ])
                ]),
            // Where and when each known photo was taken, for the report's photo timeline by body site (null for photos
            // announced before; an announcement delivered again fills them in).
            Migration(
                version: 13, name: "known photos' site and time",
                statements: ["ALTER TABLE known_photos ADD COLUMN body_site text, ADD COLUMN side text, ADD COLUMN taken_at timestamptz"]),
            // Reports shared with someone outside Caretide (`OutsideShareStore`): the share, its code's salted digest
            // (never the code), its failures and lock; and every opening, refused ones included, for the patient.
            Migration(
                version: 14, name: "reports shared outside Caretide",
                statements: [
                    """
                    CREATE TABLE outside_shares (
                        share_id uuid PRIMARY KEY,
                        patient_id text NOT NULL,
                        period_from timestamptz NOT NULL,
                        period_to timestamptz NOT NULL,
                        sections text[] NOT NULL,
                        code_salt bytea NOT NULL,
                        code_digest bytea NOT NULL,
                        asks_birth_date boolean NOT NULL,
                        created_at timestamptz NOT NULL,
                        expires_at timestamptz NOT NULL,
                        revoked_at timestamptz,
                        failed_attempts integer NOT NULL DEFAULT 0,
                        locked_at timestamptz)
                    """,
                    "CREATE INDEX outside_shares_by_patient ON outside_shares (patient_id, created_at)",
                    """
                    CREATE TABLE outside_share_openings (
                        opening_id uuid PRIMARY KEY,
                        share_id uuid NOT NULL REFERENCES outside_shares ON DELETE CASCADE,
                        patient_id text NOT NULL,
                        at timestamptz NOT NULL,
                        viewer_name text,
                        address text NOT NULL,
                        outcome text NOT NULL)
                    """,
                    "CREATE INDEX outside_share_openings_by_share ON outside_share_openings (share_id, at)",
                    "CREATE INDEX outside_share_openings_refused ON outside_share_openings (address, at) WHERE outcome <> 'opened'",
                ]),
        ])
}
