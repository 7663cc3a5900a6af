import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation

/// What each measurement kind is called and coded as (LOINC, UCUM): the one table the templates route and the FHIR
/// export read. The fields' forms and bounds are the request schemas' (`MeasurementTemplates`), not repeated here.
enum MeasurementCodes {
    /// One coded value of a kind: its request field, its LOINC code and name, and its UCUM unit (nil where the request
    /// names its unit in `unit`: glucose and lipids, in mg/dL or mmol/L).
    struct Value: Sendable {
        let field: String
        let code: String
        let display: String
        let unit: String?
    }

    struct Kind: Sendable {
        let name: String
        /// The panel's LOINC code and name, for a kind whose values are recorded together.
        let panel: (code: String, display: String)?
        let values: [Value]
    }

    static func kind(_ kind: MeasurementKind) -> Kind {
        switch kind {
        case .bloodPressure:
            Kind(
                name: "Blood pressure", panel: ("85354-9", "Blood pressure panel with all children optional"),
                values: [
                    Value(field: "systolic", code: "8480-6", display: "Systolic blood pressure", unit: "mm[Hg]"),
                    Value(field: "diastolic", code: "8462-4", display: "Diastolic blood pressure", unit: "mm[Hg]"),
                ])
        case .pulse:
            Kind(name: "Pulse", panel: nil, values: [Value(field: "beatsPerMinute", code: "8867-4", display: "Heart rate", unit: "/min")])
        case .bodyMeasurement:
            Kind(
                name: "Weight and height", panel: nil,
                values: [
                    Value(field: "weightKg", code: "29463-7", display: "Body weight", unit: "kg"),
                    Value(field: "heightCm", code: "8302-2", display: "Body height", unit: "cm"),
                ])
        case .glucose:
            Kind(
                name: "Blood glucose", panel: nil,
                values: [Value(field: "value", code: "2339-0", display: "Glucose [Mass/volume] in Blood", unit: nil)])
        case .hba1c:
            Kind(
                name: "HbA1c", panel: nil,
                values: [Value(field: "percent", code: "4548-4", display: "Hemoglobin A1c/Hemoglobin.total in Blood", unit: "%")])
        case .lipidPanel:
            Kind(
                name: "Lipid panel", panel: ("57698-3", "Lipid panel with direct LDL - Serum or Plasma"),
                values: [
                    Value(field: "totalCholesterol", code: "2093-3", display: "Cholesterol [Mass/volume] in Serum or Plasma", unit: nil),
                    Value(field: "hdlCholesterol", code: "2085-9", display: "Cholesterol in HDL [Mass/volume] in Serum or Plasma", unit: nil),
                    Value(
                        field: "ldlCholesterol", code: "13457-7", display: "Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation",
                        unit: nil),
                    Value(field: "triglycerides", code: "2571-8", display: "Triglyceride [Mass/volume] in Serum or Plasma", unit: nil),
                ])
        }
    }

    /// The UCUM unit of a concentration whose request names `mgPerDL` or `mmolPerL`.
    static func concentrationUnit(_ requestUnit: String?) -> String { requestUnit == "mmolPerL" ? "mmol/L" : "mg/dL" }
}

/// `GET /v1/measurement-templates`: every measurement kind with its name, its codes and the fields its request takes
/// (each field's type, unit, bounds, allowed values and whether it is required), so an app builds its forms from it
/// (the seeds' `CheckTemplate`). Read from the request schemas themselves, so a form never allows what a POST refuses.
struct MeasurementTemplates: Sendable {
    struct Coding: Encodable, Sendable {
        let system = "http://loinc.org"
        let code: String
        let display: String
    }

    struct Template: Encodable, Sendable {
        /// As in `/v1/patients/{patientId}/measurements/{kind}`.
        let kind: String
        let name: String
        let code: Coding?
        let path: String
        let fields: [Field]
    }

    struct Field: Encodable, Sendable {
        let name: String
        /// integer, number, string (with `format` date-time or uuid) or choice (one of `values`).
        let type: String
        let format: String?
        let required: Bool
        /// UCUM; absent where the unit is the value of the request's own `unit` field.
        let unit: String?
        let code: Coding?
        let minimum: Double?
        let maximum: Double?
        let exclusiveMinimum: Double?
        let values: [String]?
        let description: String?
    }

    struct Catalogue: Encodable, Sendable {
        let templates: [Template]
    }

    let catalogue: Catalogue

    /// Builds the templates from the request schemas the service validates against.
    init(schemas catalog: SchemaCatalog = .bundled) {
        catalogue = Catalogue(
            templates: MeasurementKind.allCases.compactMap { kind in
                catalog.requests[MeasurementRoutes.definition(kind).requestSchema].map { Self.template(kind, schema: $0.document) }
            })
    }

    static func template(_ kind: MeasurementKind, schema: JSONValue) -> Template {
        let codes = MeasurementCodes.kind(kind)
        let required = Set((schema["required"]?.elements ?? []).compactMap(\.stringValue))
        let properties: [(String, JSONValue)] =
            if case .object(let members)? = schema["properties"] { members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } } else { [] }
        // A schema's properties come unordered: the required fields first, each group by name.
        let fields = properties.map { name, property in
            let value = codes.values.first { $0.field == name }
            let values = property["enum"].map { $0.elements.compactMap(\.stringValue) }
            return Field(
                name: name, type: values != nil ? "choice" : property["type"]?.stringValue ?? "string", format: property["format"]?.stringValue,
                required: required.contains(name), unit: value?.unit, code: value.map { Coding(code: $0.code, display: $0.display) },
                minimum: property["minimum"]?.numberValue, maximum: property["maximum"]?.numberValue,
                exclusiveMinimum: property["exclusiveMinimum"]?.numberValue, values: values, description: property["description"]?.stringValue)
        }
        return Template(
            kind: kind.rawValue, name: codes.name, code: codes.panel.map { Coding(code: $0.code, display: $0.display) },
            path: "/v1/patients/{patientId}/measurements/\(kind.rawValue)",
            fields: fields.filter(\.required) + fields.filter { !$0.required })
    }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/measurement-templates", access: .referenceData,
            summary: "Every measurement kind with its name, codes and the fields its request takes (type, unit, bounds, choices), to build forms from"
        ) { _, _ in
            try jsonResponse(catalogue)
        }
    }
}
