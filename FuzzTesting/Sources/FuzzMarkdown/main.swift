import CaretideArticles

/// Bytes as an article's Markdown (the route reads the JSON string, so any text can arrive; invalid UTF-8 is replaced
/// here as a lossy decode would), rendered through cmark-gfm and the sanitiser; and the same text given straight to the
/// sanitiser, which must cope with any HTML, not only the HTML cmark-gfm writes.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        _ = try ArticleMarkup.render(text)
    } catch {
        // Shapes whose cost grows by the square of their size: refused before cmark-gfm reads them, as the route does.
    }
    _ = SafeHTML.plainText(SafeHTML.sanitize(text))
    return 0
}
