import CCmarkGFM
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An information page's Markdown as the HTML and plain text readers get. Pure: text in, text out.
///
/// cmark-gfm, GitHub's CommonMark parser (with its tables and strikethrough), turns the Markdown into HTML. It holds
/// no recursion on the stack, however deep the nesting; the two shapes whose time it spends by the square of their size
/// are refused before it reads them. It lets any HTML written in the Markdown through as it is; so everything it gives is then passed through `SafeHTML`, which keeps the tags Markdown
/// makes and nothing else. A `<script>`, an event handler, a `javascript:` link or an image from elsewhere never
/// reaches a page: an article is written by operators and institutions, but read in apps that trust Caretide's HTML.
public enum ArticleMarkup {
    public struct Rendered: Sendable, Equatable {
        /// Sanitised HTML: the tags of `SafeHTML.allowedTags`, with no attribute but a safe `href` on links.
        public let html: String
        /// The words alone, a paragraph a line: for search, notifications and screen readers' previews.
        public let text: String
    }

    /// Markdown that `render` will not parse, and why; the article route answers it as a 422 on `/markdown`.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case bracketsNestTooDeep(limit: Int)
        case tooManyBarsInALine(limit: Int)

        public var description: String {
            switch self {
            case .bracketsNestTooDeep(let limit):
                "nests square brackets (links, images) more than \(limit) deep in one paragraph: close them, or write \\[ for a plain bracket"
            case .tooManyBarsInALine(let limit):
                "has a line with more than \(limit) `|` (table cells): split the table, or write \\| for a plain bar"
            }
        }
    }

    /// The deepest nesting of `[` that a paragraph may have. At every `]` cmark-gfm looks back over the brackets still
    /// open, so text whose brackets only ever open (`![[]()` again and again) costs time by the square of its length.
    /// Prose never needs more than two or three (`[a link with [1] in it](…)`).
    public static let maximumBracketNesting = 8

    /// The most `|` one line may hold. A table row's cells cost cmark-gfm time by the square of their number, and a
    /// table an app can show has a handful of columns.
    public static let maximumBarsInALine = 128

    public static func render(_ markdown: String) throws(Refusal) -> Rendered {
        guard bracketNesting(markdown) <= maximumBracketNesting else { throw .bracketsNestTooDeep(limit: maximumBracketNesting) }
        guard mostBarsInALine(markdown) <= maximumBarsInALine else { throw .tooManyBarsInALine(limit: maximumBarsInALine) }
        var html = SafeHTML.sanitize(commonMarkHTML(markdown))
        while html.last == "\n" { html.removeLast() }
        return Rendered(html: html, text: SafeHTML.plainText(html))
    }

    /// The GitHub extensions an article may use. The autolinking of bare URLs is left out: Debian's cmark-gfm reads
    /// past its buffer on some inputs there (fixed upstream in 0.29.0.gfm.7), and `<https://…>` links without it.
    static let extensionNames = ["table", "strikethrough"]

    /// cmark-gfm keeps the characters its extensions react to in process-wide tables that attaching an extension
    /// writes: one parse at a time. An article is rendered when it is written, not when it is read.
    private static let parsing = Mutex(())

    /// The Markdown as cmark-gfm's HTML, raw HTML passed through (`SafeHTML` is what removes it).
    static func commonMarkHTML(_ markdown: String) -> String {
        let options = CMARK_OPT_UNSAFE
        return parsing.withLock { _ in
            cmark_gfm_core_extensions_ensure_registered()
            guard let parser = cmark_parser_new(options) else { return "" }
            defer { cmark_parser_free(parser) }
            for name in extensionNames {
                if let syntax = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, syntax) }
            }
            var text = markdown
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
            }
            guard let document = cmark_parser_finish(parser) else { return "" }
            defer { cmark_node_free(document) }
            guard let html = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else { return "" }
            defer { free(html) }
            return String(cString: html)
        }
    }
}

extension ArticleMarkup {
    /// The deepest nesting of square brackets in any paragraph: every `[` opens (escaped ones too, which only
    /// over-counts), a `]` closes the innermost open one, and a blank line ends every open one, as it ends a paragraph.
    static func bracketNesting(_ markdown: String) -> Int {
        var deepest = 0
        var open = 0
        var lineIsBlank = true
        for byte in markdown.utf8 {
            switch byte {
            case UInt8(ascii: "["):
                open += 1
                deepest = max(deepest, open)
                lineIsBlank = false
            case UInt8(ascii: "]"):
                open = max(0, open - 1)
                lineIsBlank = false
            case UInt8(ascii: "\n"):
                if lineIsBlank { open = 0 }
                lineIsBlank = true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            default:
                lineIsBlank = false
            }
        }
        return deepest
    }

    /// The most `|` in one line, escaped ones not counted (cmark-gfm does not split a cell there).
    static func mostBarsInALine(_ markdown: String) -> Int {
        var most = 0
        var bars = 0
        var escaped = false
        for byte in markdown.utf8 {
            switch byte {
            case UInt8(ascii: "|") where !escaped: bars += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                most = max(most, bars)
                bars = 0
            default: break
            }
            escaped = byte == UInt8(ascii: "\\") && !escaped
        }
        return max(most, bars)
    }
}

/// An allow-list sanitiser for the HTML Markdown makes. Every `<` that does not open or close an allowed tag is
/// written as `&lt;`, so what was meant as markup is shown as text; allowed tags lose every attribute, but a link keeps
/// an `href` whose scheme is http, https or mailto, or a path on the same site.
public enum SafeHTML {
    public static let allowedTags: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "strong", "em", "b", "i", "code", "pre", "blockquote", "a", "hr",
        "br", "table", "thead", "tbody", "tr", "th", "td", "del", "s",
    ]
    static let voidTags: Set<String> = ["hr", "br"]

    public static func sanitize(_ html: String) -> String {
        var output = ""
        output.reserveCapacity(html.utf8.count)
        var rest = Substring(html)
        // The next `>` and the last `<` before it, found once for all the `<` before it: only that last `<` can open
        // a tag, and looking for `>` from every `<` anew took time by the square of a page of `<` (no longer).
        var close: (greaterThan: Substring.Index, lastOpen: Substring.Index)?
        var closesLeft = true
        while let character = rest.first {
            switch character {
            case "<":
                if closesLeft, close.map({ $0.greaterThan < rest.startIndex }) ?? true {
                    if let greaterThan = rest.firstIndex(of: ">") {
                        close = (greaterThan, rest[..<greaterThan].lastIndex(of: "<") ?? rest.startIndex)
                    } else {
                        closesLeft = false
                    }
                }
                if closesLeft, let close, close.lastOpen == rest.startIndex,
                    let (tag, length) = allowedTag(at: rest[...close.greaterThan])
                {
                    output += tag
                    rest = rest.dropFirst(length)
                } else {
                    output += "&lt;"
                    rest = rest.dropFirst()
                }
            case ">":
                output += "&gt;"
                rest = rest.dropFirst()
            case "&":
                let entity = entityLength(at: rest)
                output += entity > 0 ? String(rest.prefix(entity)) : "&amp;"
                rest = rest.dropFirst(max(entity, 1))
            default:
                output.append(character)
                rest = rest.dropFirst()
            }
        }
        return output
    }

    /// The text of sanitised HTML: tags dropped, block ends as line breaks, entities decoded, blank lines collapsed.
    public static func plainText(_ html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let start = rest.firstIndex(of: "<") {
            text += rest[..<start]
            guard let end = rest[start...].firstIndex(of: ">") else { break }
            let name = rest[rest.index(after: start)..<end].drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            if ["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "blockquote", "pre", "hr"].contains(name) { text += "\n" }
            rest = rest[rest.index(after: end)...]
        }
        text += rest
        return decodeEntities(text).split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            .filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// An allowed tag at the start of `text`, rewritten without attributes (a link with its safe `href`), and how
    /// many characters it took; nil for anything else.
    static func allowedTag(at text: Substring) -> (String, Int)? {
        guard let end = text.firstIndex(of: ">") else { return nil }
        let inside = text[text.index(after: text.startIndex)..<end]
        guard !inside.contains("<") else { return nil }
        let closing = inside.first == "/"
        let body = closing ? inside.dropFirst() : inside
        let name = String(body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }).lowercased()
        guard !name.isEmpty, allowedTags.contains(name) else { return nil }
        let attributes = body.dropFirst(name.count)
        guard attributes.isEmpty || attributes.first == " " || attributes.first == "\n" || attributes.first == "/" else { return nil }
        let length = text.distance(from: text.startIndex, to: end) + 1
        if closing { return voidTags.contains(name) ? ("", length) : ("</\(name)>", length) }
        if name == "a", let href = attribute("href", in: attributes).flatMap(safeURL) {
            return ("<a href=\"\(escapeAttribute(href))\" rel=\"nofollow noopener\">", length)
        }
        return ("<\(name)>", length)
    }

    /// The value of `name="…"` (or `'…'`) among a tag's attributes, entities decoded.
    static func attribute(_ name: String, in attributes: Substring) -> String? {
        let key = name + "="
        var rest = attributes
        while let start = rest.indices.first(where: { rest[$0...].hasPrefix(key) }) {
            let before = rest[..<start].last
            rest = rest[rest.index(start, offsetBy: key.count)...]
            guard before == nil || before == " " || before == "\n", let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let value = rest.dropFirst()
            guard let close = value.firstIndex(of: quote) else { return nil }
            return decodeEntities(String(value[..<close]))
        }
        return nil
    }

    /// The URL if a link may lead there: http, https, mailto, or a path or fragment on the same site; with no space,
    /// control character, quote or angle bracket (after entities are decoded, as a browser would).
    static func safeURL(_ url: String) -> String? {
        guard !url.isEmpty, url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !"\"'<>`\\".unicodeScalars.contains($0) })
        else { return nil }
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") || lowered.hasPrefix("mailto:") { return url }
        if (url.hasPrefix("/") && !url.hasPrefix("//")) || url.hasPrefix("#") { return url }
        return nil
    }

    static func escapeAttribute(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "\"": output += "&quot;"
            default: output.append(character)
            }
        }
        return output
    }

    /// The length of a character reference at the start of `text` (`&amp;`, `&#60;`, `&#x3C;`), 0 if there is none.
    static func entityLength(at text: Substring) -> Int {
        let body = text.dropFirst().prefix(34)
        guard let semicolon = body.firstIndex(of: ";") else { return 0 }
        let name = body[..<semicolon]
        let valid: Bool
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            valid = (1...6).contains(name.count - 2) && name.dropFirst(2).allSatisfy(\.isHexDigit)
        } else if name.hasPrefix("#") {
            valid = (1...7).contains(name.count - 1) && name.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
        } else {
            valid = (2...32).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
        return valid ? name.count + 2 : 0
    }

    /// The character references a page's text uses: the five XML ones and numeric ones; others are left as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            let length = entityLength(at: rest)
            guard length > 0 else {
                output += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest.dropFirst().prefix(length - 2)
            let scalar: Unicode.Scalar? =
                switch name {
                case "amp": "&"
                case "lt": "<"
                case "gt": ">"
                case "quot": "\""
                case "apos", "#39": "'"
                default:
                    name.hasPrefix("#x") || name.hasPrefix("#X")
                        ? UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                        : name.hasPrefix("#") ? UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) : nil
                }
            if let scalar { output.unicodeScalars.append(scalar) } else { output += rest.prefix(length) }
            rest = rest.dropFirst(length)
        }
        return output + rest
    }
}
