import CaretideSchemas
public import Hummingbird

/// Opaque patient identifiers, as the envelope schema defines them (`^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`).
public enum PatientID {
    /// Read as bytes: every request that names a patient asks, and the pattern admits ASCII alone.
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard let first = bytes.first, bytes.count <= 64, first.isASCIIAlphanumeric else { return false }
        return bytes.allSatisfy {
            $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-")
        }
    }

    /// The `patientId` path parameter, or a 400 naming it.
    public static func fromPath(_ context: some RequestContext) throws -> String {
        try fromPath(context, parameter: "patientId", label: "patient id")
    }

    /// An opaque identifier path parameter with the same rules (doctor, institution, …), or a 400 naming it.
    public static func fromPath(_ context: some RequestContext, parameter: String, label: String) throws -> String {
        guard let value = context.parameters.get(parameter), isValid(value) else {
            throw HTTPProblem.invalidPathParameter(
                parameter, label: label, requirement: "must be 1 to 64 letters, digits or . _ : - starting with a letter or digit")
        }
        return value
    }
}
