import CaretideCharts
import Testing

/// Charts and report pages: hostile text stays text, every chart has its text alternative, points outside the normal
/// range are marked by shape and word as well as colour, and dates are written without a locale.
@Suite struct ReportRenderingTests {
    static let hostile = #"<script>alert("x")</script> & 'quotes' \#u{0007}"#

    @Test("markup in any text becomes text, and control characters are dropped")
    func escaping() {
        let escaped = Markup.escape(Self.hostile)
        #expect(escaped == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; ")
        #expect(Markup.escape("line\nbreak\tand tab") == "line\nbreak\tand tab")
    }

    @Test("numbers are written plainly: no exponent, no trailing zeros")
    func numbers() {
        #expect(Markup.number(120) == "120" && Markup.number(6.6) == "6.6" && Markup.number(2.345, decimals: 2) == "2.35")
        #expect(Markup.number(0.00001) == "0" && Markup.number(.nan) == "–")
    }

    @Test("a number past what Int holds is written with every digit, not a trap; so is a chart of such values")
    func hugeNumbers() {
        // An exam value above Int.max stopped scoring-service each time its patient's report was rendered.
        #expect(Markup.number(1e19) == "10000000000000000000" && Markup.number(-1e19) == "-10000000000000000000")
        #expect(Markup.number(Double(Int.max)) == "9223372036854775808" && Markup.number(.infinity) == "–")
        #expect(Markup.number(1.5e300).count == 301 && !Markup.number(1.5e300).contains("e"))
        #expect(Markup.number(123_456_789_012.345, decimals: 2) == "123456789012.35")
        let extremes: [Double] = [-.greatestFiniteMagnitude, .greatestFiniteMagnitude, 1e19, -1e19]
        let svg = LineChart(
            id: "x", title: "Extremes", unit: "U",
            series: [
                LineChart.Series(
                    name: "value",
                    points: extremes.enumerated().map {
                        .init(time: 1_790_000_000 + Double($0.offset) * 86_400, value: $0.element, label: "", abnormal: false)
                    })
            ],
            bands: [], start: 1_790_000_000, end: 1_790_400_000
        ).svg
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
    }

    @Test("dates by arithmetic, before and after 1970 and over leap days")
    func dates() {
        #expect(LineChart.date(0) == "1970-01-01")
        #expect(LineChart.date(951_782_400) == "2000-02-29")
        #expect(LineChart.date(1_798_761_599) == "2026-12-31" && LineChart.date(1_798_761_600) == "2027-01-01")
        #expect(LineChart.date(-86_400) == "1969-12-31")
        #expect(LineChart.date(-2_208_988_800) == "1900-01-01")
    }

    static func chart(name: String = "Systolic") -> LineChart {
        LineChart(
            id: "bp", title: "Blood pressure", unit: "mmHg",
            series: [
                LineChart.Series(
                    name: name,
                    points: [
                        .init(time: 1_790_000_000, value: 118, label: "Normal", abnormal: false),
                        .init(time: 1_790_086_400, value: 192, label: "Very high", abnormal: true),
                    ])
            ],
            bands: [.init(label: "Normal", from: nil, below: 120, level: 0), .init(label: "Crisis", from: 181, below: nil, level: 3)],
            start: 1_790_000_000, end: 1_790_172_800)
    }

    @Test("a chart names itself and describes its extremes; each point has its own title; the abnormal one is a diamond")
    func chart() {
        let svg = Self.chart().svg
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"role="img""#) && svg.contains(#"aria-labelledby="bp-title bp-desc""#))
        #expect(svg.contains("<title id=\"bp-title\">Blood pressure</title>"))
        #expect(svg.contains("lowest 118 mmHg on 2026-09-21, highest 192 mmHg on 2026-09-22; 1 outside the normal range."))
        #expect(svg.contains("<title>2026-09-22: Systolic 192 mmHg, Very high</title></path>"))
        #expect(svg.contains("<title>2026-09-21: Systolic 118 mmHg, Normal</title></circle>"))
        #expect(svg.contains(">Crisis</tspan></text>") && svg.contains(">mmHg</text>"))
    }

    @Test("hostile names in a chart and a page stay inert; a flagged cell says so in words")
    func hostileContent() {
        let svg = Self.chart(name: Self.hostile).svg
        #expect(!svg.contains("<script") && svg.contains("&lt;script&gt;"))
        let page = ReportPage(
            title: Self.hostile, subtitle: "Patient p-1", language: "en\"><script>",
            sections: [
                ReportPage.Section(
                    heading: "Results", paragraphs: [Self.hostile], charts: [Self.chart()],
                    tables: [
                        ReportPage.Table(caption: "Items", header: ["Item", "Value"], rows: [[.init(Self.hostile), .init("9.1", flagged: true)]])
                    ])
            ], footer: "Made by Caretide")
        let html = page.html
        #expect(html.hasPrefix("<!DOCTYPE html><html lang=\"en&quot;&gt;&lt;script&gt;\">"))
        #expect(!html.contains("<script") && !html.lowercased().contains("javascript:"))
        #expect(html.contains(#"<td class="flagged">▲ 9.1</td>"#))
        #expect(html.contains(#"<th scope="col">Item</th>"#) && html.contains("<caption>Items</caption>"))
    }
}
