/// A report as one self-contained HTML page: headings, paragraphs, tables and inline SVG charts, a print style sheet,
/// and nothing that runs (the service sends it with a Content-Security-Policy that allows no script). Values outside
/// their normal range are marked with a sign and a word as well as a colour, so a page printed in black and white
/// still says which they are. Pure: a value in, markup out; every text is escaped here.
public struct ReportPage: Sendable {
    public struct Cell: Sendable {
        public let text: String
        /// Outside the normal range: bold, marked "▲", coloured.
        public let flagged: Bool

        public init(_ text: String, flagged: Bool = false) {
            self.text = text
            self.flagged = flagged
        }
    }

    public struct Table: Sendable {
        public let caption: String
        public let header: [String]
        public let rows: [[Cell]]

        public init(caption: String, header: [String], rows: [[Cell]]) {
            self.caption = caption
            self.header = header
            self.rows = rows
        }
    }

    public struct Section: Sendable {
        public let heading: String
        public let paragraphs: [String]
        public let charts: [LineChart]
        public let tables: [Table]

        public init(heading: String, paragraphs: [String] = [], charts: [LineChart] = [], tables: [Table] = []) {
            self.heading = heading
            self.paragraphs = paragraphs
            self.charts = charts
            self.tables = tables
        }
    }

    public let title: String
    /// Whose report and over which period, under the title.
    public let subtitle: String
    /// The BCP 47 tag of the page's language.
    public let language: String
    public let sections: [Section]
    public let footer: String

    public init(title: String, subtitle: String, language: String, sections: [Section], footer: String) {
        self.title = title
        self.subtitle = subtitle
        self.language = language
        self.sections = sections
        self.footer = footer
    }

    /// Also in the page itself, so a saved or printed copy opened from a file runs nothing either.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

    static let styleSheet = """
        body{font-family:"DejaVu Sans",Arial,sans-serif;color:#111;margin:24px auto;max-width:760px;line-height:1.4}\
        h1{font-size:22px;margin:0}h2{font-size:17px;border-bottom:1px solid #999;margin-top:28px}\
        .subtitle{color:#444;margin:4px 0 16px}table{border-collapse:collapse;width:100%;margin:8px 0;font-size:13px}\
        caption{text-align:left;font-weight:bold;padding:4px 0}th,td{border:1px solid #bbb;padding:3px 6px;text-align:left}\
        td.flagged{font-weight:bold;color:#b00020}svg.chart{width:100%;height:auto;margin:8px 0}\
        footer{margin-top:32px;font-size:11px;color:#444}\
        @media print{body{margin:0;max-width:none}h2,table,svg{break-inside:avoid}a{color:#111}}
        """

    public var html: String {
        var page = """
            <!DOCTYPE html><html lang="\(Markup.escape(language))"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <meta http-equiv="Content-Security-Policy" content="\(Self.contentSecurityPolicy)"><title>\(Markup.escape(title))</title>\
            <style>\(Self.styleSheet)</style></head><body><header><h1>\(Markup.escape(title))</h1>\
            <p class="subtitle">\(Markup.escape(subtitle))</p></header><main>
            """
        for section in sections {
            page += "<section><h2>\(Markup.escape(section.heading))</h2>"
            for paragraph in section.paragraphs { page += "<p>\(Markup.escape(paragraph))</p>" }
            for chart in section.charts { page += chart.svg }
            for table in section.tables {
                page += "<table><caption>\(Markup.escape(table.caption))</caption><thead><tr>"
                for column in table.header { page += "<th scope=\"col\">\(Markup.escape(column))</th>" }
                page += "</tr></thead><tbody>"
                for row in table.rows {
                    page += "<tr>"
                    for cell in row {
                        page += cell.flagged ? "<td class=\"flagged\">▲ \(Markup.escape(cell.text))</td>" : "<td>\(Markup.escape(cell.text))</td>"
                    }
                    page += "</tr>"
                }
                page += "</tbody></table>"
            }
            page += "</section>"
        }
        return page + "</main><footer>\(Markup.escape(footer))</footer></body></html>"
    }
}
