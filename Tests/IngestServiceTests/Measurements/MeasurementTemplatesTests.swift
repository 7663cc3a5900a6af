import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

@Suite("Measurement templates")
struct MeasurementTemplatesTests {
    let templates: [MeasurementTemplates.Template]

    init() { templates = MeasurementTemplates().catalogue.templates }

    func field(_ kind: MeasurementKind, _ name: String) -> MeasurementTemplates.Field? {
        templates.first { $0.kind == kind.rawValue }?.fields.first { $0.name == name }
    }

    @Test("every measurement kind has a template, named and coded, at its own path, its required fields first")
    func everyKind() {
        #expect(templates.map(\.kind) == MeasurementKind.allCases.map(\.rawValue))
        #expect(templates.allSatisfy { !$0.name.isEmpty && $0.path == "/v1/patients/{patientId}/measurements/\($0.kind)" })
        for template in templates {
            let required = template.fields.prefix { $0.required }
            #expect(required.count == template.fields.filter(\.required).count, "\(template.kind): required fields first")
            #expect(template.fields.contains { $0.name == "measurementId" && $0.required && $0.format == "uuid" })
            #expect(template.fields.contains { $0.name == "takenAt" && $0.required && $0.format == "date-time" })
        }
        #expect(templates.first { $0.kind == "blood-pressure" }?.code?.code == "85354-9")
    }

    @Test("a field's bounds and choices are the request schema's, with its LOINC code and UCUM unit")
    func fields() throws {
        let systolic = try #require(field(.bloodPressure, "systolic"))
        #expect(systolic.type == "integer" && systolic.required && systolic.minimum == 50 && systolic.maximum == 300)
        #expect(systolic.unit == "mm[Hg]" && systolic.code?.code == "8480-6")
        #expect(field(.bodyMeasurement, "weightKg")?.unit == "kg" && field(.bodyMeasurement, "weightKg")?.type == "number")
        // Glucose's value is in the unit the request names, one of two.
        let value = try #require(field(.glucose, "value"))
        #expect(value.unit == nil && value.exclusiveMinimum == 0 && value.code?.code == "2339-0")
        #expect(field(.glucose, "unit")?.type == "choice" && field(.glucose, "unit")?.values == ["mgPerDL", "mmolPerL"])
        #expect(field(.glucose, "context")?.values == ["fasting", "twoHourOGTT", "random"])
        #expect(field(.lipidPanel, "hdlCholesterol")?.required == false && field(.lipidPanel, "source")?.values?.contains("device") == true)
    }
}
