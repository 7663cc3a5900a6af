import Foundation

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
/// silently claim a rule that nobody checks. It reports every violation, not only the first, because HTTP callers
/// get one 400 that names each failing field, up to `maximumViolations` and then a count of the rest: a hostile
/// document cannot make the answer larger than itself.
public struct JSONSchema: Sendable {
    public let document: JSONValue
    /// The document with its keywords read into fields and its references resolved, once: validating a message then
    /// does no dictionary lookups of keywords, no reference parsing and no pattern compiling.
    private let root: CompiledSchema

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
        var compiler = SchemaCompiler(document: document)
        root = compiler.compile(document)
    }

    public init(bytes: some Collection<UInt8>) throws(SchemaViolation) {
        try self.init(document: try CaretideJSON.parse(bytes))
    }

    /// The most violations `validate` lists; beyond them it adds one that counts the rest.
    public static let maximumViolations = 100

    /// The members the schema names at its top level (`properties`): what a consumer knows of an object.
    public var topLevelProperties: Set<String> { Set(root.properties.keys) }

    /// The violations of `instance` against this schema, sorted by pointer; empty when valid. At most
    /// `maximumViolations` of them, then one at the root saying how many more there were.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        var violations = ViolationSink(limit: Self.maximumViolations)
        var pointer = JSONPointer.root
        root.check(instance, at: &pointer, into: &violations)
        // A `$ref` or `allOf` can find the same fault twice; it is listed once.
        var listed = Set(violations.kept).sorted { ($0.pointer, $0.message) < ($1.pointer, $1.message) }
        if violations.total > violations.kept.count {
            listed.append(SchemaViolation(pointer: .root, message: "and \(violations.total - violations.kept.count) more violations not listed"))
        }
        return listed
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
}

/// Reads a schema document into `CompiledSchema` nodes. A `$ref` becomes the node of its target, compiled once, so
/// recursive schemas work and shared definitions are shared.
private struct SchemaCompiler {
    let document: JSONValue
    private var byReference: [String: CompiledSchema] = [:]
    private var expressions: [String: NSRegularExpression?] = [:]

    init(document: JSONValue) { self.document = document }

    mutating func compile(_ schema: JSONValue) -> CompiledSchema {
        let node = CompiledSchema()
        fill(node, from: schema)
        return node
    }

    private mutating func fill(_ node: CompiledSchema, from schema: JSONValue) {
        if case .bool(let allowed) = schema {
            node.booleanSchema = allowed
            return
        }
        guard case .object(let rules) = schema else { return }
        if let reference = rules["$ref"]?.stringValue {
            node.reference = .some(resolve(reference).map { .resolved($0) } ?? .unresolvable(reference))
        }
        switch rules["type"] {
        case .string(let name)?: node.types = [name]
        case .array(let names)?: node.types = names.compactMap(\.stringValue)
        case _?: node.types = []
        case nil: break
        }
        if case .array(let values)? = rules["enum"] { node.enumValues = values }
        node.constValue = rules["const"]
        if case .array(let required)? = rules["required"] { node.required = required.compactMap(\.stringValue) }
        if case .object(let properties)? = rules["properties"] {
            node.properties = properties.mapValues { compile($0) }
            for name in node.required { node.properties[name]?.requiredByParent = true }
        }
        switch rules["additionalProperties"] {
        case .bool(false)?: node.additionalProperties = .forbidden
        case let additional?: node.additionalProperties = .schema(compile(additional))
        case nil: break
        }
        node.minItems = rules["minItems"]?.numberValue
        node.maxItems = rules["maxItems"]?.numberValue
        if case .bool(true)? = rules["uniqueItems"] { node.uniqueItems = true }
        node.items = rules["items"].map { compile($0) }
        node.minimum = rules["minimum"]?.numberValue
        node.maximum = rules["maximum"]?.numberValue
        node.exclusiveMinimum = rules["exclusiveMinimum"]?.numberValue
        node.exclusiveMaximum = rules["exclusiveMaximum"]?.numberValue
        node.multipleOf = rules["multipleOf"]?.numberValue
        node.minLength = rules["minLength"]?.numberValue
        node.maxLength = rules["maxLength"]?.numberValue
        if let pattern = rules["pattern"]?.stringValue {
            if let simple = SimplePattern(pattern) {
                node.pattern = (pattern, .simple(simple))
            } else {
                if expressions[pattern] == nil { expressions[pattern] = .some(try? NSRegularExpression(pattern: pattern)) }
                node.pattern = (pattern, .expression(expressions[pattern]!))
            }
        }
        node.format = rules["format"]?.stringValue
        if case .array(let schemas)? = rules["allOf"] { node.allOf = schemas.map { compile($0) } }
        if case .array(let schemas)? = rules["anyOf"] { node.anyOf = schemas.map { compile($0) } }
        if case .array(let schemas)? = rules["oneOf"] { node.oneOf = schemas.map { compile($0) } }
        node.not = rules["not"].map { compile($0) }
    }

    /// Only local references ("#/$defs/name") are used: each schema file stands alone.
    private mutating func resolve(_ reference: String) -> CompiledSchema? {
        if let node = byReference[reference] { return node }
        guard reference.hasPrefix("#/") else { return nil }
        var target = document
        for token in reference.dropFirst(2).split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = target[key] else { return nil }
            target = next
        }
        // Registered before it is filled, so a reference back to it (recursion) finds it.
        let node = CompiledSchema()
        byReference[reference] = node
        fill(node, from: target)
        return node
    }
}

/// A compiled pattern: a `SimplePattern` where it can be one, else a regular expression. `@unchecked Sendable`:
/// NSRegularExpression is immutable once made and documented as safe to share between threads.
private enum Pattern: @unchecked Sendable {
    case simple(SimplePattern)
    /// nil: the pattern does not compile.
    case expression(NSRegularExpression?)

    /// JSON Schema patterns are unanchored (ECMA-262 semantics): a match anywhere counts. A pattern that does not
    /// compile matches nothing.
    func matches(_ value: String) -> Bool {
        switch self {
        case .simple(let simple): simple.matches(value)
        case .expression(let expression?): expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
        case .expression(nil): false
        }
    }
}

/// Violations as they are found: the first `limit` kept, all of them counted.
struct ViolationSink {
    let limit: Int
    private(set) var kept: [SchemaViolation] = []
    private(set) var total = 0

    init(limit: Int) { self.limit = limit }

    var isEmpty: Bool { total == 0 }

    mutating func append(_ violation: SchemaViolation) {
        total += 1
        if kept.count < limit { kept.append(violation) }
    }

    mutating func append(contentsOf other: ViolationSink) {
        for violation in other.kept where kept.count < limit { kept.append(violation) }
        total += other.total
    }
}

/// One schema (sub)document, its keywords read into fields. `@unchecked Sendable`: written only while its schema is
/// compiled, read-only after.
private final class CompiledSchema: @unchecked Sendable {
    enum Reference {
        case resolved(CompiledSchema)
        case unresolvable(String)
    }

    enum AdditionalProperties {
        case forbidden
        case schema(CompiledSchema)
    }

    var booleanSchema: Bool?
    var reference: Reference?
    var types: [String]?
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    var required: [String] = []
    var properties: [String: CompiledSchema] = [:]
    /// A property schema whose name its object's `required` lists.
    var requiredByParent = false
    var additionalProperties: AdditionalProperties?
    var minItems: Double?
    var maxItems: Double?
    var uniqueItems = false
    var items: CompiledSchema?
    var minimum: Double?
    var maximum: Double?
    var exclusiveMinimum: Double?
    var exclusiveMaximum: Double?
    var multipleOf: Double?
    var minLength: Double?
    var maxLength: Double?
    var pattern: (source: String, compiled: Pattern)?
    var format: String?
    var allOf: [CompiledSchema] = []
    var anyOf: [CompiledSchema] = []
    var oneOf: [CompiledSchema] = []
    var not: CompiledSchema?

    /// `pointer` names where `instance` sits; it is extended in place on the way down and is as it was on return.
    func check(_ instance: JSONValue, at pointer: inout JSONPointer, into violations: inout ViolationSink) {
        if let allowed = booleanSchema {
            if !allowed { violations.append(SchemaViolation(pointer: pointer, message: "is not allowed")) }
            return
        }
        func fail(_ message: String) { violations.append(SchemaViolation(pointer: pointer, message: message)) }

        switch reference {
        case .resolved(let target)?: target.check(instance, at: &pointer, into: &violations)
        case .unresolvable(let reference)?: fail("schema reference \(reference) cannot be resolved")
        case nil: break
        }

        if let allowed = types {
            let actual = instance.schemaTypeName
            let matches = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !matches {
                fail("must be \(allowed.count == 1 ? "of type \(allowed[0])" : "one of the types \(allowed.joined(separator: ", "))")")
                return  // further rules would only repeat the same complaint
            }
        }

        if let values = enumValues, !values.contains(instance) {
            let names = values.map { $0.stringValue ?? "\($0)" }
            fail("must be one of: \(names.joined(separator: ", "))")
        }
        if let constant = constValue, constant != instance {
            fail("must equal \(constant.stringValue ?? "\(constant)")")
        }

        switch instance {
        case .object(let members): checkObject(members, at: &pointer, into: &violations)
        case .array(let elements): checkArray(elements, at: &pointer, into: &violations)
        case .number(let value): checkNumber(value, fail: fail)
        case .string(let value): checkString(value, fail: fail)
        case .null, .bool: break
        }

        for subschema in allOf { subschema.check(instance, at: &pointer, into: &violations) }
        if !anyOf.isEmpty {
            let passing = anyOf.contains { subschema in
                var scratch = ViolationSink(limit: 0)
                subschema.check(instance, at: &pointer, into: &scratch)
                return scratch.isEmpty
            }
            if !passing { fail("must match at least one of the allowed shapes") }
        }
        if !oneOf.isEmpty {
            var passing = 0
            var closest: ViolationSink? = nil
            for subschema in oneOf {
                var scratch = ViolationSink(limit: violations.limit)
                subschema.check(instance, at: &pointer, into: &scratch)
                if scratch.isEmpty { passing += 1 } else if closest == nil || scratch.total < closest!.total { closest = scratch }
            }
            if passing == 0 {
                // Report the violations of the nearest alternative: they name the fields a caller most likely meant.
                if let closest { violations.append(contentsOf: closest) } else { fail("must match one of the allowed shapes") }
            } else if passing > 1 {
                fail("matches more than one of the allowed shapes")
            }
        }
        if let negated = not {
            var scratch = ViolationSink(limit: 0)
            negated.check(instance, at: &pointer, into: &scratch)
            if scratch.isEmpty { fail("must not match the excluded shape") }
        }
    }

    private func checkObject(_ members: [String: JSONValue], at pointer: inout JSONPointer, into violations: inout ViolationSink) {
        // The required names are counted as the members are checked, rather than each looked up: an object that has
        // them all (nearly every one) hashes no name twice. The members' violations wait, so that an object's missing
        // names still come first, as they are reported.
        var memberViolations = ViolationSink(limit: violations.limit)
        if checkMembers(members, at: &pointer, into: &memberViolations) < required.count {
            for name in required where members[name] == nil {
                violations.append(SchemaViolation(pointer: pointer.appending(name), message: "is required"))
            }
        }
        violations.append(contentsOf: memberViolations)
    }

    /// Checks each member; returns how many of them `required` names.
    private func checkMembers(_ members: [String: JSONValue], at pointer: inout JSONPointer, into violations: inout ViolationSink) -> Int {
        var requiredMembers = 0
        var unknownMembers = 0
        for (name, value) in members {
            if name.containsNULScalar {
                // Named at the object: the name itself is caller text.
                violations.append(SchemaViolation(pointer: pointer, message: "has a member name containing U+0000, which cannot be stored"))
            } else if let propertySchema = properties[name] {
                if propertySchema.requiredByParent { requiredMembers += 1 }
                pointer.descending(into: name) { propertySchema.check(value, at: &$0, into: &violations) }
            } else {
                switch additionalProperties {
                case .forbidden?: unknownMembers += 1
                // A map's keys are caller text too: what fails in its values is reported at the map.
                case .schema(let additional)?: additional.check(value, at: &pointer, into: &violations)
                case nil: Self.checkUnconstrained(value, at: pointer, into: &violations)
                }
            }
        }
        if unknownMembers > 0 {
            // Never echoed: a member name is caller text, and may be anything (even a diagnosis); the object is named.
            violations.append(
                SchemaViolation(
                    pointer: pointer,
                    message: unknownMembers == 1
                        ? "has a member that is not a known field" : "has \(unknownMembers) members that are not known fields"))
        }
        return requiredMembers
    }

    private func checkArray(_ elements: [JSONValue], at pointer: inout JSONPointer, into violations: inout ViolationSink) {
        if let minimum = minItems, Double(elements.count) < minimum {
            violations.append(SchemaViolation(pointer: pointer, message: "must have at least \(Int(minimum)) items"))
        }
        if let maximum = maxItems, Double(elements.count) > maximum {
            // Checking each of a million items would only repeat, at great cost, that there are too many.
            violations.append(SchemaViolation(pointer: pointer, message: "must have at most \(Int(maximum)) items"))
            return
        }
        if uniqueItems, Set(elements).count != elements.count {
            violations.append(SchemaViolation(pointer: pointer, message: "must not repeat items"))
        }
        if let itemSchema = items {
            for (index, element) in elements.enumerated() {
                pointer.descending(into: String(index)) { itemSchema.check(element, at: &$0, into: &violations) }
            }
        } else {
            for element in elements { Self.checkUnconstrained(element, at: pointer, into: &violations) }
        }
    }

    /// A value no schema describes still may not hold U+0000 anywhere (PostgreSQL refuses it in text and jsonb); the
    /// violation names the nearest described place, never a caller's member name.
    private static func checkUnconstrained(_ value: JSONValue, at pointer: JSONPointer, into violations: inout ViolationSink) {
        if value.containsNUL { violations.append(SchemaViolation(pointer: pointer, message: "contains U+0000, which cannot be stored")) }
    }

    private func checkNumber(_ value: Double, fail: (String) -> Void) {
        if let bound = minimum, value < bound { fail("must be at least \(bound.compact)") }
        if let bound = maximum, value > bound { fail("must be at most \(bound.compact)") }
        if let bound = exclusiveMinimum, value <= bound { fail("must be greater than \(bound.compact)") }
        if let bound = exclusiveMaximum, value >= bound { fail("must be less than \(bound.compact)") }
        if let step = multipleOf, step > 0, !(value / step).isIntegral { fail("must be a multiple of \(step.compact)") }
    }

    private func checkString(_ value: String, fail: (String) -> Void) {
        // Whatever the schema says: PostgreSQL refuses U+0000 in text and jsonb, so it would fail only once stored.
        if value.containsNULScalar { fail("must not contain U+0000, which cannot be stored") }
        if minLength != nil || maxLength != nil {
            // Code points, as JSON Schema counts a string's length (Validation 2020-12 §6.3, "characters as defined by
            // RFC 8259"): not Swift's characters, which join a flag's two scalars or a letter and its accent into one.
            let length = value.unicodeScalars.count
            if let minimum = minLength, Double(length) < minimum { fail("must have at least \(Int(minimum)) characters") }
            if let maximum = maxLength, Double(length) > maximum { fail("must have at most \(Int(maximum)) characters") }
        }
        if let pattern, !pattern.compiled.matches(value) {
            fail("must match the pattern \(pattern.source)")
        }
        if let format, !StringFormat.matches(value, format: format) {
            fail("must be a valid \(format)")
        }
    }
}

/// The `format` values Caretide's schemas use; unknown formats are annotations only, as draft 2020-12 allows.
enum StringFormat {
    static func matches(_ value: String, format: String) -> Bool {
        switch format {
        case "date-time": Timestamp.parse(value) != nil  // which also bounds the year (see `Timestamp.plausibleRange`)
        case "uuid": isUUID(value)
        case "date": isDate(value)
        default: true
        }
    }

    /// `YYYY-MM-DD`: a real calendar day in a plausible year (the years of `Timestamp.plausibleRange`).
    static func isDate(_ value: String) -> Bool {
        Timestamp.parse(value + "T00:00:00Z") != nil
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

extension Double {
    /// "120" rather than "120.0" in messages.
    var compact: String { isIntegral ? String(Int64(self)) : String(self) }
}

extension JSONValue {
    /// Whether any string or member name in this value contains U+0000.
    var containsNUL: Bool {
        switch self {
        case .string(let value): value.containsNULScalar
        case .array(let elements): elements.contains { $0.containsNUL }
        case .object(let members): members.contains { $0.key.containsNULScalar || $0.value.containsNUL }
        case .null, .bool, .number: false
        }
    }
}

extension String {
    /// Whether the text holds U+0000, which PostgreSQL refuses in text and jsonb. Every string of every event and
    /// request is asked, so native strings are searched with `memchr` (the generic search over `utf8` took 6 % of
    /// reading an event: `caretide-bench codec`).
    var containsNULScalar: Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, 0, bytes.count) != nil
        } ?? utf8.contains(0)
    }
}
