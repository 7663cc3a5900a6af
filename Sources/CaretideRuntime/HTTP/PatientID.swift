import CaretideSchemas
public import Hummingbird

/// Opaque patient identifiers, as the envelope schema defines them (`^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`).
public enum PatientID {
    public static func isValid(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, value.unicodeScalars.count <= 64, first.isASCIIAlphanumeric else { return false }
        return value.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || "._:-".unicodeScalars.contains($0) }
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

extension Unicode.Scalar {
    var isASCIIAlphanumeric: Bool { isASCII && (properties.isAlphabetic || ("0"..."9").contains(self)) }
}
