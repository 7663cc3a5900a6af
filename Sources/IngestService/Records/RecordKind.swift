import CaretideSchemas

/// What a record is. One table keeps every kind (`records.record_type`); a measurement's kind rides in its type
/// ("measurement:pulse"), and this is the one place that joins and splits that text.
enum RecordKind: Hashable, Sendable {
    case measurement(MeasurementKind)
    case npi
    case melanomaRiskProfile
    case examResult
    case meal

    static let all: [RecordKind] = MeasurementKind.allCases.map(RecordKind.measurement) + [.npi, .melanomaRiskProfile, .examResult, .meal]

    /// The `record_type` column.
    var recordType: String {
        switch self {
        case .measurement(let kind): Self.measurementPrefix + kind.rawValue
        default: family
        }
    }

    /// What the changes feed and the listings call the record: `measurement`, `npi`, `melanoma-risk-profile`,
    /// `exam-result` or `meal`; a measurement's own kind is `measurementKind`.
    var family: String {
        switch self {
        case .measurement: "measurement"
        case .npi: "npi"
        case .melanomaRiskProfile: "melanoma-risk-profile"
        case .examResult: "exam-result"
        case .meal: "meal"
        }
    }

    var measurementKind: MeasurementKind? {
        if case .measurement(let kind) = self { kind } else { nil }
    }

    private static let measurementPrefix = "measurement:"

    /// The kind a stored `record_type` names.
    init(recordType: String) throws {
        guard let kind = Self.byRecordType[recordType] else { throw UnknownRecordType(recordType: recordType) }
        self = kind
    }

    private static let byRecordType = Dictionary(uniqueKeysWithValues: all.map { ($0.recordType, $0) })
}

/// A `records` row of a type this build does not know: a defect (or a newer replica's row), never the caller's fault.
struct UnknownRecordType: Error, CustomStringConvertible {
    let recordType: String
    var description: String { "unknown record type \(recordType)" }
}
