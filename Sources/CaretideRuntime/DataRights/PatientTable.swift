/// A table of a service that holds rows about a patient, and how to find them: what an erasure deletes and what an
/// export copies are read off one list, so a table cannot be erased without being exported or the other
/// way round.
public struct PatientTable: Sendable, Hashable {
    public let name: String
    /// The condition on the table's rows (alias `t`), with the patient's id as `$1`.
    public let rows: String
    /// Columns the export leaves out: bytes served by a route of their own (a photo's image), secrets.
    public let omitted: [String]

    public init(_ name: String, rows: String = "t.patient_id = $1", omitting omitted: [String] = []) {
        self.name = name
        self.rows = rows
        self.omitted = omitted
    }

    /// Deletes the patient's rows.
    var deletion: String { "DELETE FROM \(name) t WHERE \(rows)" }

    /// The patient's rows as one JSON array, each row an object of its columns (as PostgreSQL names them).
    var selection: String {
        "SELECT coalesce(jsonb_agg(to_jsonb(t)\(omitted.map { " - '\($0)'" }.joined())), '[]'::jsonb)::text FROM \(name) t WHERE \(rows)"
    }
}
