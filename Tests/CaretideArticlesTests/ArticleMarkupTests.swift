import PropertyBased
import Testing

@testable import CaretideArticles

/// Information pages: Markdown keeps its formatting, and nothing that could run or load reaches the HTML.
@Suite struct ArticleMarkupTests {
    @Test("Markdown's own formatting comes through: headings, lists, emphasis, links, code, quotes")
    func formatting() throws {
        let rendered = try ArticleMarkup.render(
            """
            # Checking your skin

            Look at **every** mole once a month, *in good light*:

            - the back, with a mirror
            - the soles of the feet

            See [the guide](https://www.example.org/abcde) or [help](/v1/articles/help.photos).

            > Not sure? Ask your doctor.
            """)
        #expect(rendered.html.contains("<h1>Checking your skin</h1>"))
        #expect(rendered.html.contains("<strong>every</strong>") && rendered.html.contains("<em>in good light</em>"))
        #expect(rendered.html.contains("<ul>\n<li>the back, with a mirror</li>"))
        #expect(rendered.html.contains(#"<a href="https://www.example.org/abcde" rel="nofollow noopener">the guide</a>"#))
        #expect(rendered.html.contains(#"<a href="/v1/articles/help.photos" rel="nofollow noopener">help</a>"#))
        #expect(rendered.html.contains("<blockquote>"))
        #expect(rendered.text.split(separator: "\n").first == "Checking your skin")
        #expect(rendered.text.contains("Look at every mole once a month, in good light:") && !rendered.text.contains("<"))
    }

    @Test("no script, handler, frame, style, form or foreign image reaches the page; what was meant as markup shows as text")
    func hostileMarkup() throws {
        let cases = [
            "<script>alert(1)</script>",
            "Hello <SCRIPT src=//evil.example/x.js></SCRIPT>",
            #"<img src="x" onerror="alert(1)">"#,
            "![pixel](https://tracker.example/p.gif)",
            "[click](javascript:alert(1))",
            "[click](JaVaScRiPt&#58;alert(1))",
            #"<a href="java&#x73;cript:alert(1)">x</a>"#,
            #"<a href=" javascript:alert(1)">x</a>"#,
            "[x](//evil.example/)",
            #"<p onclick="alert(1)" style="color:red">hi</p>"#,
            "<iframe src=https://evil.example></iframe>",
            "<style>body{display:none}</style>",
            "<form action=https://evil.example><input name=p></form>",
            "<!-- <script>alert(1)</script> -->",
            "<svg onload=alert(1)>",
            "<a href='data:text/html,<script>alert(1)</script>'>x</a>",
            "<scr<script>ipt>alert(1)</script>",
        ]
        for markdown in cases {
            let html = try ArticleMarkup.render(markdown).html
            // What was meant as markup may show as text; no tag carries it.
            for tag in Self.tags(in: html) {
                #expect(Self.isSafe(tag), "\(markdown) → \(html)")
            }
            #expect(!html.lowercased().contains("href=\"javascript") && !html.lowercased().contains("href=\"data:"), "\(markdown) → \(html)")
        }
        #expect(try ArticleMarkup.render("<script>alert(1)</script>").html.contains("&lt;script&gt;"))
        #expect(try ArticleMarkup.render(#"<p onclick="x">hi</p>"#).html == "<p>hi</p>")
    }

    /// Every `<…>` of a page.
    static func tags(in html: String) -> [Substring] {
        var found: [Substring] = []
        var rest = Substring(html)
        while let start = rest.firstIndex(of: "<") {
            guard let end = rest[start...].firstIndex(of: ">") else {
                found.append(rest[start...])
                break
            }
            found.append(rest[start...end])
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// An allowed tag, bare, or a link with a safe href and nothing else.
    static func isSafe(_ tag: Substring) -> Bool {
        let name = tag.dropFirst().drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }
        guard SafeHTML.allowedTags.contains(String(name)), tag.hasSuffix(">") else { return false }
        guard tag.contains(" ") else { return true }
        guard tag.hasPrefix("<a href=\""), tag.hasSuffix("\" rel=\"nofollow noopener\">") else { return false }
        let href = tag.dropFirst("<a href=\"".count).dropLast("\" rel=\"nofollow noopener\">".count).lowercased()
        return !href.contains("\"")
            && (href.hasPrefix("https://") || href.hasPrefix("http://") || href.hasPrefix("mailto:") || href.hasPrefix("#")
                || (href.hasPrefix("/") && !href.hasPrefix("//")))
    }

    @Test("whatever the input, every tag in the output is an allowed one with no attribute but a safe href")
    func onlyAllowedTags() async {
        let pieces = [
            "<", ">", "&", "\"", "'", "a", "script", "img", "href=", "javascript:", "/", " ", "=", "#", "**", "[x](", ")", "\n", "&#60;", "p",
        ]
        await propertyCheck(input: Gen<String?>.element(of: pieces).map { $0 ?? "" }.array(of: 0...40)) { parts in
            let html = SafeHTML.sanitize(parts.joined())
            for tag in Self.tags(in: html) { #expect(Self.isSafe(tag), "\(tag) in \(html)") }
        }
    }

    @Test("character references: valid ones kept, a bare ampersand escaped, the text decoded")
    func entities() {
        #expect(SafeHTML.sanitize("AT&T &amp; &#169; &#xA9; &copy; &#;") == "AT&amp;T &amp; &#169; &#xA9; &copy; &amp;#;")
        #expect(SafeHTML.plainText("<p>Fish &amp; chips &#8212; &lt;3</p>") == "Fish & chips — <3")
    }

    /// Text built to make a Markdown parser backtrack, recurse or loop, each at the article schema's 100,000 characters.
    static let hostileShapes: [(name: String, markdown: String)] = [
        ("unclosed brackets", String(repeating: "[[[[[[[[x\n\n", count: 9_000)),
        ("closed brackets", String(repeating: "[[[[[[[[a]]]]]]]]()", count: 5_000)),
        ("nested quotes", String(repeating: ">", count: 100_000) + " x"),
        ("nested lists", String(repeating: "- ", count: 50_000) + "x"),
        ("emphasis runs", String(repeating: "*a **a ", count: 14_000)),
        ("underscores", String(repeating: "_a __a ", count: 14_000)),
        ("backticks", String(repeating: "`a``", count: 25_000)),
        ("unclosed tags", String(repeating: "<p", count: 50_000)),
        ("wide rows", "a|b\n-|-\n" + String(repeating: String(repeating: "|", count: 128) + "\n", count: 770)),
        ("escaped bars", "a|b\n-|-\n" + String(repeating: "\\|", count: 50_000)),
        ("strikethrough", String(repeating: "~~a ~", count: 20_000)),
        ("entities", String(repeating: "&#", count: 50_000)),
    ]

    @Test("text built to exhaust a Markdown parser renders, and what was not markup is still there as text")
    func hostileShapesRender() throws {
        // Ink, the renderer before cmark-gfm, overflowed its stack on 50,000 `[`, looped for ever on `<p` and trapped
        // on an index out of bounds (FuzzTesting/FailCases/FuzzMarkdown holds the first two).
        for (name, markdown) in Self.hostileShapes {
            let rendered = try ArticleMarkup.render(markdown)
            for tag in Self.tags(in: rendered.html) { #expect(Self.isSafe(tag), "\(name): \(tag)") }
            #expect(!rendered.text.isEmpty, "\(name)")
        }
        #expect(try ArticleMarkup.render("<p").text == "<p" && ArticleMarkup.render("a <P").text == "a <P")
        #expect(try ArticleMarkup.render("<p>hi</p>").html == "<p>hi</p>")
    }

    @Test("brackets nested past the bound, or a line of more bars than a table may have, are refused before cmark-gfm reads them")
    func refusedShapes() throws {
        let deepest = ArticleMarkup.maximumBracketNesting
        #expect(throws: ArticleMarkup.Refusal.bracketsNestTooDeep(limit: deepest)) {
            try ArticleMarkup.render(String(repeating: "![[]()", count: 16_000))
        }
        #expect(throws: ArticleMarkup.Refusal.bracketsNestTooDeep(limit: deepest)) {
            try ArticleMarkup.render(String(repeating: "[", count: deepest + 1) + "x" + String(repeating: "]", count: deepest + 1))
        }
        // At the bound, nested or unclosed, it renders; a blank line ends a paragraph and every bracket open in it.
        let nested = try ArticleMarkup.render(String(repeating: "[", count: deepest) + "x" + String(repeating: "]", count: deepest))
        #expect(nested.text == String(repeating: "[", count: deepest) + "x" + String(repeating: "]", count: deepest))
        _ = try ArticleMarkup.render(Array(repeating: String(repeating: "[", count: deepest), count: 3).joined(separator: "\n\n"))
        _ = try ArticleMarkup.render(String(repeating: "See [the guide](https://example.org) [1]. ", count: 2_000))
        #expect(ArticleMarkup.bracketNesting("[a [b] c]\n \n[[d") == 2)

        let bars = ArticleMarkup.maximumBarsInALine
        #expect(throws: ArticleMarkup.Refusal.tooManyBarsInALine(limit: bars)) {
            try ArticleMarkup.render("a|b\n-|-\n" + String(repeating: "|", count: 25_000))
        }
        #expect(throws: ArticleMarkup.Refusal.tooManyBarsInALine(limit: bars)) {
            try ArticleMarkup.render("x\n" + String(repeating: "a|", count: bars + 1))
        }
        #expect(ArticleMarkup.mostBarsInALine("a|b|c\r\n\\|\\\\|") == 2 && ArticleMarkup.mostBarsInALine("|") == 1)
    }

    @Test("the GitHub extensions an article may use: tables and strikethrough; a bare URL stays text")
    func extensions() throws {
        let table = try ArticleMarkup.render("| Test | Range |\n|:-----|------:|\n| LDL | < 3.0 |\n")
        #expect(table.html.contains("<table>") && table.html.contains("<th>Test</th>") && table.html.contains("<td>&lt; 3.0</td>"))
        #expect(try ArticleMarkup.render("~~old~~ new").html == "<p><del>old</del> new</p>")
        #expect(try ArticleMarkup.render("see https://example.org").html == "<p>see https://example.org</p>")
        #expect(try ArticleMarkup.render("see <https://example.org>").html.contains(#"<a href="https://example.org" rel="nofollow noopener">"#))
    }

    @Test("a page of angle brackets is escaped in one pass")
    func angleBrackets() {
        // Looking for `>` from every `<` anew took time by the square of the page.
        let html = SafeHTML.sanitize(String(repeating: "<", count: 200_000) + "<p>x</p>")
        #expect(html == String(repeating: "&lt;", count: 200_000) + "<p>x</p>")
        #expect(SafeHTML.sanitize("<<p>x<</p>>") == "&lt;<p>x&lt;</p>&gt;")
    }
}
