import CaretideStore

/// diagnosis-service's tables. Every ontology release is kept whole, keyed by `release_id`: an import writes a new
/// release in one transaction, so readers see either the previous release or the complete new one, never a mix.
/// Every child table references `releases` directly, so deleting an old release is one index range per table.
enum DiagnosisMigrations {
    static let track = MigrationTrack(
        name: "diagnosis",
        migrations: [
            Migration(
                version: 1, name: "ontology releases, saved queries, answered requests",
                statements: [
                    """
                    CREATE TABLE releases (
                        release_id bigserial PRIMARY KEY,
                        kind text NOT NULL CHECK (kind IN ('full', 'minimum')),
                        ontology_version text,
                        annotation_version text,
                        term_count integer NOT NULL,
                        disease_count integer NOT NULL,
                        annotation_count integer NOT NULL,
                        -- Annotation rows skipped or mapped while loading (unknown, obsolete, outside the phenotype root).
                        load_warning_count integer NOT NULL,
                        -- The recall check of the release (simulated patients), or NULL for a minimum update.
                        accuracy_report jsonb,
                        import_seconds double precision NOT NULL,
                        imported_at timestamptz NOT NULL DEFAULT now(),
                        -- The ontology-update.requested event that started it; a redelivered request imports once.
                        update_id text UNIQUE)
                    """,
                    // Every stanza of hp.obo, obsolete ones included, so old ids keep resolving.
                    """
                    CREATE TABLE terms (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        term_id text NOT NULL,
                        name text NOT NULL,
                        is_obsolete boolean NOT NULL,
                        PRIMARY KEY (release_id, term_id))
                    """,
                    """
                    CREATE TABLE term_synonyms (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        term_id text NOT NULL,
                        ordinal integer NOT NULL,
                        synonym text NOT NULL,
                        scope text NOT NULL CHECK (scope IN ('EXACT', 'RELATED', 'BROAD', 'NARROW')),
                        PRIMARY KEY (release_id, term_id, ordinal))
                    """,
                    // The is-a graph and the id bookkeeping of hp.obo: is_a, alt_id, replaced_by and consider.
                    """
                    CREATE TABLE term_relations (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        term_id text NOT NULL,
                        relation text NOT NULL CHECK (relation IN ('is_a', 'alt_id', 'replaced_by', 'consider')),
                        ordinal integer NOT NULL,
                        target_id text NOT NULL,
                        PRIMARY KEY (release_id, term_id, relation, ordinal))
                    """,
                    """
                    CREATE TABLE diseases (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        disease_id text NOT NULL,
                        name text NOT NULL,
                        PRIMARY KEY (release_id, disease_id))
                    """,
                    // phenotype.hpoa rows as written (aspect P, NOT rows dropped); term ids are resolved when the release loads.
                    """
                    CREATE TABLE annotations (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        line integer NOT NULL,
                        disease_id text NOT NULL,
                        term_id text NOT NULL,
                        reference text NOT NULL,
                        evidence text NOT NULL,
                        onset text NOT NULL,
                        frequency text NOT NULL,
                        sex text NOT NULL,
                        modifier text NOT NULL,
                        PRIMARY KEY (release_id, line))
                    """,
                    // The p-value null distributions, computed once per release at import (NullDistribution's binary form).
                    """
                    CREATE TABLE null_distributions (
                        release_id bigint NOT NULL REFERENCES releases ON DELETE CASCADE,
                        scoring text NOT NULL CHECK (scoring IN ('asymmetric', 'symmetric')),
                        sample_count integer NOT NULL,
                        max_query_size integer NOT NULL,
                        encoded bytea NOT NULL,
                        PRIMARY KEY (release_id, scoring))
                    """,
                    """
                    CREATE TABLE saved_queries (
                        query_id uuid PRIMARY KEY,
                        doctor_id text NOT NULL,
                        name text NOT NULL,
                        phenotypes text[] NOT NULL CHECK (cardinality(phenotypes) > 0),
                        excluded text[] NOT NULL,
                        scoring text NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        UNIQUE (doctor_id, name))
                    """,
                    // Kafka requests already answered, so a repeated request id is answered once.
                    """
                    CREATE TABLE answered_requests (
                        request_id text PRIMARY KEY,
                        event_id uuid NOT NULL,
                        outcome text NOT NULL,
                        release_id bigint,
                        answered_at timestamptz NOT NULL DEFAULT now())
                    """,
                ]),
            // A query may be saved before any phenotype is known; ranking one is refused by the route instead.
            Migration(
                version: 2, name: "saved queries may be empty",
                statements: ["ALTER TABLE saved_queries DROP CONSTRAINT saved_queries_phenotypes_check"]),
            // A consultant's request for an ontology update check, and an operator's decision. An approved
            // request's import is the release whose update_id is its update_id.
            Migration(
                version: 3, name: "ontology update requests",
                statements: [
                    """
                    CREATE TABLE ontology_update_requests (
                        request_id uuid PRIMARY KEY,
                        requested_by text NOT NULL,
                        requested_at timestamptz NOT NULL DEFAULT now(),
                        status text NOT NULL CHECK (status IN ('pending', 'approved', 'refused')),
                        decided_by text,
                        decided_at timestamptz,
                        update_id text UNIQUE)
                    """,
                    "CREATE INDEX ontology_update_requests_by_requester ON ontology_update_requests (requested_by, requested_at DESC)",
                ]),
        ])
}
