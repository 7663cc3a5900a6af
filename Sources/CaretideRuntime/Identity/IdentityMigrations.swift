import CaretideStore

/// The tables of the layer every service shares, in each service's schema: the projection of care-team grants, the
/// audit trail, idempotency keys and the inbound messages applied.
enum IdentityMigrations {
    static let track = MigrationTrack(
        name: "identity",
        migrations: [
            Migration(
                version: 1, name: "care-team grants and access audit",
                statements: [
                    // One row per (patient, consultant): the latest grant or revocation. `changed_at` is the time of the
                    // event that set it, so an older event applied late (a replay) never undoes a newer one.
                    """
                    CREATE TABLE care_team_grants (
                        patient_id text NOT NULL,
                        consultant_id text NOT NULL,
                        granted_at timestamptz NOT NULL,
                        expires_at timestamptz,
                        revoked_at timestamptz,
                        changed_at timestamptz NOT NULL,
                        last_event_id uuid NOT NULL,
                        PRIMARY KEY (patient_id, consultant_id))
                    """,
                    // Who did what to whose data, and every refused request (FHIR AuditEvent's agent, entity, action,
                    // outcome). Ids only.
                    """
                    CREATE TABLE access_audit (
                        audit_id uuid PRIMARY KEY,
                        recorded_at timestamptz NOT NULL,
                        subject text NOT NULL,
                        role text NOT NULL,
                        institution_id text,
                        action text NOT NULL,
                        operation text NOT NULL,
                        patient_id text,
                        owner text,
                        outcome text NOT NULL,
                        status integer NOT NULL,
                        request_id text NOT NULL)
                    """,
                    // A patient's access log, newest first, paged by (recorded_at, audit_id).
                    "CREATE INDEX access_audit_patient ON access_audit (patient_id, recorded_at DESC, audit_id DESC) WHERE patient_id IS NOT NULL",
                ]),
            // Answers kept for `Idempotency-Key` retries (`IdempotencyKeys`), a day each.
            Migration(
                version: 2, name: "idempotency keys",
                statements: [
                    """
                    CREATE TABLE idempotency_keys (
                        owner text NOT NULL,
                        key text NOT NULL,
                        request_hash bytea NOT NULL,
                        status integer NOT NULL,
                        response bytea NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (owner, key))
                    """,
                    "CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)",
                ]),
            // Messages from inbound topics already applied (`InboundMessages`), kept a day.
            Migration(
                version: 3, name: "inbound messages applied",
                statements: [
                    """
                    CREATE TABLE inbound_messages (
                        topic text NOT NULL,
                        partition integer NOT NULL,
                        message_offset bigint NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (topic, partition, message_offset))
                    """,
                    "CREATE INDEX inbound_messages_age ON inbound_messages (applied_at)",
                ]),
            // A kept answer is replayed in its own media type: an HL7 v2 ACK or a FHIR resource is not JSON to its
            // reader. Rows kept before this have none, and were all JSON.
            Migration(
                version: 4, name: "the media type of kept answers",
                statements: [
                    "ALTER TABLE idempotency_keys ADD COLUMN content_type text"
                ]),
            // The patients whose data this service erased (`ErasedPatients`): the id and the erasure, nothing else.
            Migration(
                version: 5, name: "erased patients",
                statements: [
                    """
                    CREATE TABLE erased_patients (
                        patient_id text PRIMARY KEY,
                        erasure_id uuid NOT NULL,
                        erased_at timestamptz NOT NULL)
                    """
                ]),
        ])
}
