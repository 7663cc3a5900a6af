import Foundation
import Synchronization

/// One failing field: where (a JSON Pointer into the checked document) and what is wrong, in words safe to show a caller.
/// Messages name the rule, never echo the offending value (values may be patient data).
public struct SchemaViolation: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public let pointer: String
    public let message: String

    public init(pointer: JSONPointer, message: String) {
        self.pointer = pointer.description
        self.message = message
    }

    public var description: String { pointer.isEmpty ? message : "\(pointer): \(message)" }
}

/// A validator for the subset of JSON Schema draft 2020-12 that Caretide's schema files use.
///
/// Keywords it does not implement are refused when the schema is loaded (`unsupportedKeywords`), so a schema can never
/// silently claim a rule that nobody checks. It reports *every* violation, not only the first, because HTTP callers
/// get one 400 that names each failing field.
public struct JSONSchema: Sendable {
    public let document: JSONValue

    /// Keywords with meaning to this validator, or annotations without effect on validation.
    static let knownKeywords: Set<String> = [
        "$schema", "$id", "$defs", "$ref", "$comment", "title", "description", "examples", "default", "deprecated",
        "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
        "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
        "maxLength", "pattern", "format", "oneOf", "anyOf", "allOf", "not", "readOnly",
    ]

    public init(document: JSONValue) throws(SchemaViolation) {
        self.document = document
        let unsupported = JSONSchema.unsupportedKeywords(in: document, at: .root)
        if let first = unsupported.first {
            throw SchemaViolation(pointer: first, message: "schema uses a keyword this validator does not implement")
        }
    }

    public init(bytes: some Collection<UInt8>) throws(SchemaViolation) {
        try self.init(document: try CaretideJSON.parse(bytes))
    }

    /// Every violation of `instance` against this schema, sorted by pointer; empty when valid.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        check(instance, against: document, at: .root, into: &violations)
        return violations.sorted { ($0.pointer, $0.message) < ($1.pointer, $1.message) }
    }

    static func unsupportedKeywords(in schema: JSONValue, at pointer: JSONPointer) -> [JSONPointer] {
        guard case .object(let members) = schema else { return [] }
        var found: [JSONPointer] = []
        for (key, value) in members {
            let here = pointer.appending(key)
            if !knownKeywords.contains(key) && !key.hasPrefix("x-") { found.append(here) }
            switch key {
            case "properties", "$defs":
                if case .object(let children) = value {
                    for (name, child) in children { found += unsupportedKeywords(in: child, at: here.appending(name)) }
                }
            case "items", "additionalProperties", "not":
                found += unsupportedKeywords(in: value, at: here)
            case "oneOf", "anyOf", "allOf":
                if case .array(let children) = value {
                    for (index, child) in children.enumerated() { found += unsupportedKeywords(in: child, at: here.appending(index)) }
                }
            default: break
            }
        }
        return found.sorted()
    }

    private func resolve(_ reference: String) -> JSONValue? {
        // Only local references ("#/$defs/name") are used: each schema file stands alone.
        guard reference.hasPrefix("#/") else { return nil }
        var node = document
        for token in reference.dropFirst(2).split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }

    private func check(_ instance: JSONValue, against schema: JSONValue, at pointer: JSONPointer, into violations: inout [SchemaViolation]) {
        if case .bool(let allowed) = schema {
            if !allowed { violations.append(SchemaViolation(pointer: pointer, message: "is not allowed")) }
            return
        }
        guard case .object(let rules) = schema else { return }
        func fail(_ message: String) { violations.append(SchemaViolation(pointer: pointer, message: message)) }

        if let reference = rules["$ref"]?.stringValue {
            if let target = resolve(reference) {
                check(instance, against: target, at: pointer, into: &violations)
            } else {
                fail("schema reference \(reference) cannot be resolved")
            }
        }

        if let typeRule = rules["type"] {
            let allowed: [String] = switch typeRule {
            case .string(let name): [name]
            case .array(let names): names.compactMap(\.stringValue)
            default: []
            }
            let actual = instance.schemaTypeName
            let matches = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !matches {
                fail("must be \(allowed.count == 1 ? "of type \(allowed[0])" : "one of the types \(allowed.joined(separator: ", "))")")
                return  // further rules would only repeat the same complaint
            }
        }

        if let options = rules["enum"], case .array(let values) = options, !values.contains(instance) {
            let names = values.map { $0.stringValue ?? "\($0)" }
            fail("must be one of: \(names.joined(separator: ", "))")
        }
        if let constant = rules["const"], constant != instance {
            fail("must equal \(constant.stringValue ?? "\(constant)")")
        }

        switch instance {
        case .object(let members): checkObject(members, rules: rules, at: pointer, into: &violations)
        case .array(let elements): checkArray(elements, rules: rules, at: pointer, into: &violations)
        case .number(let value): checkNumber(value, rules: rules, fail: fail)
        case .string(let value): checkString(value, rules: rules, fail: fail)
        case .null, .bool: break
        }

        if let all = rules["allOf"], case .array(let schemas) = all {
            for subschema in schemas { check(instance, against: subschema, at: pointer, into: &violations) }
        }
        if let any = rules["anyOf"], case .array(let schemas) = any {
            let passing = schemas.filter { subschema in
                var scratch: [SchemaViolation] = []
                check(instance, against: subschema, at: pointer, into: &scratch)
                return scratch.isEmpty
            }
            if passing.isEmpty { fail("must match at least one of the allowed shapes") }
        }
        if let one = rules["oneOf"], case .array(let schemas) = one {
            var passing = 0
            var closest: [SchemaViolation]? = nil
            for subschema in schemas {
                var scratch: [SchemaViolation] = []
                check(instance, against: subschema, at: pointer, into: &scratch)
                if scratch.isEmpty { passing += 1 } else if closest == nil || scratch.count < closest!.count { closest = scratch }
            }
            if passing == 0 {
                // Report the violations of the nearest alternative: they name the fields a caller most likely meant.
                violations += closest ?? [SchemaViolation(pointer: pointer, message: "must match one of the allowed shapes")]
            } else if passing > 1 {
                fail("matches more than one of the allowed shapes")
            }
        }
        if let negated = rules["not"] {
            var scratch: [SchemaViolation] = []
            check(instance, against: negated, at: pointer, into: &scratch)
            if scratch.isEmpty { fail("must not match the excluded shape") }
        }
    }

    private func checkObject(_ members: [String: JSONValue], rules: [String: JSONValue], at pointer: JSONPointer, into violations: inout [SchemaViolation]) {
        if case .array(let required)? = rules["required"] {
            for name in required.compactMap(\.stringValue) where members[name] == nil {
                violations.append(SchemaViolation(pointer: pointer.appending(name), message: "is required"))
            }
        }
        var declared: [String: JSONValue] = [:]
        if case .object(let properties)? = rules["properties"] { declared = properties }
        for (name, value) in members {
            if let propertySchema = declared[name] {
                check(value, against: propertySchema, at: pointer.appending(name), into: &violations)
            } else if let additional = rules["additionalProperties"] {
                if case .bool(false) = additional {
                    violations.append(SchemaViolation(pointer: pointer.appending(name), message: "is not a known field"))
                } else {
                    check(value, against: additional, at: pointer.appending(name), into: &violations)
                }
            }
        }
    }

    private func checkArray(_ elements: [JSONValue], rules: [String: JSONValue], at pointer: JSONPointer, into violations: inout [SchemaViolation]) {
        if let minimum = rules["minItems"]?.numberValue, Double(elements.count) < minimum {
            violations.append(SchemaViolation(pointer: pointer, message: "must have at least \(Int(minimum)) items"))
        }
        if let maximum = rules["maxItems"]?.numberValue, Double(elements.count) > maximum {
            violations.append(SchemaViolation(pointer: pointer, message: "must have at most \(Int(maximum)) items"))
        }
        if case .bool(true)? = rules["uniqueItems"], Set(elements).count != elements.count {
            violations.append(SchemaViolation(pointer: pointer, message: "must not repeat items"))
        }
        if let itemSchema = rules["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: itemSchema, at: pointer.appending(index), into: &violations)
            }
        }
    }

    private func checkNumber(_ value: Double, rules: [String: JSONValue], fail: (String) -> Void) {
        if let bound = rules["minimum"]?.numberValue, value < bound { fail("must be at least \(bound.compact)") }
        if let bound = rules["maximum"]?.numberValue, value > bound { fail("must be at most \(bound.compact)") }
        if let bound = rules["exclusiveMinimum"]?.numberValue, value <= bound { fail("must be greater than \(bound.compact)") }
        if let bound = rules["exclusiveMaximum"]?.numberValue, value >= bound { fail("must be less than \(bound.compact)") }
        if let step = rules["multipleOf"]?.numberValue, step > 0, !(value / step).isIntegral { fail("must be a multiple of \(step.compact)") }
    }

    private func checkString(_ value: String, rules: [String: JSONValue], fail: (String) -> Void) {
        let length = value.count
        if let minimum = rules["minLength"]?.numberValue, Double(length) < minimum { fail("must have at least \(Int(minimum)) characters") }
        if let maximum = rules["maxLength"]?.numberValue, Double(length) > maximum { fail("must have at most \(Int(maximum)) characters") }
        if let pattern = rules["pattern"]?.stringValue, !PatternCache.matches(value, pattern: pattern) {
            fail("must match the pattern \(pattern)")
        }
        if let format = rules["format"]?.stringValue, !StringFormat.matches(value, format: format) {
            fail("must be a valid \(format)")
        }
    }
}

/// The `format` values Caretide's schemas use; unknown formats are annotations only, as draft 2020-12 allows.
enum StringFormat {
    static func matches(_ value: String, format: String) -> Bool {
        switch format {
        case "date-time": Timestamp.parse(value) != nil
        case "uuid": isUUID(value)
        case "date": PatternCache.matches(value, pattern: #"^\d{4}-\d{2}-\d{2}$"#)
        default: true
        }
    }

    /// 8-4-4-4-12 hexadecimal digits, either case (RFC 9562's text form).
    static func isUUID(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard utf8.count == 36 else { return false }
        for (offset, byte) in utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
                guard isHex else { return false }
            }
        }
        return true
    }
}

/// Compiled regular expressions, by pattern: the schemas use a handful, and compiling one per check dominated the
/// cost of validating a message.
enum PatternCache {
    /// `@unchecked Sendable`: NSRegularExpression is immutable once made and documented as safe to share between threads.
    private final class Compiled: @unchecked Sendable {
        let expression: NSRegularExpression?
        init(_ pattern: String) { expression = try? NSRegularExpression(pattern: pattern) }
    }

    private static let cache = Mutex<[String: Compiled]>([:])

    static func matches(_ value: String, pattern: String) -> Bool {
        let compiled = cache.withLock { cache in
            if let compiled = cache[pattern] { return compiled }
            let compiled = Compiled(pattern)
            cache[pattern] = compiled
            return compiled
        }
        guard let expression = compiled.expression else { return false }
        // JSON Schema patterns are unanchored (ECMA-262 semantics): a match anywhere counts.
        return expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}

extension Double {
    /// "120" rather than "120.0" in messages.
    var compact: String { isIntegral ? String(Int64(self)) : String(self) }
}
