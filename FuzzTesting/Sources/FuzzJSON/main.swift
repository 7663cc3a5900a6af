import CaretideSchemas

// Loaded once, on the first input, as a service loads it once at start.
private let catalog = SchemaCatalog.bundled

/// Bytes as a request body: parsed as JSON (depth, numbers, strings, escapes, duplicate keys), and what parses is
/// validated against two request schemas, as a route does, and written back out. exam-result has `$ref`, patterns,
/// bounds and nested items; broadcast has `oneOf`, `const`, `format: uuid` and `uniqueItems`.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let value: JSONValue
    do {
        value = try CaretideJSON.parse(bytes)
    } catch {
        // Malformed JSON is refused with a reason: expected for most inputs.
        return 0
    }
    _ = catalog.validateRequest(.examResult, value)
    _ = catalog.validateRequest(.broadcast, value)
    _ = try? CaretideJSON.encode(value)
    return 0
}
