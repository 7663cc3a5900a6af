import CaretideSchemas
import Foundation

/// A time-series line chart as inline SVG, for reports that must read the same on a screen and on paper:
/// - the category bands of the rule shaded behind the lines, each named in the margin;
/// - each series a line of its own dash pattern (not told apart by colour alone), points a point has to answer for
///   (outside the normal band) drawn as a larger diamond rather than a dot, and every point with a `<title>` giving
///   its date, value and category;
/// - axes labelled with the unit and with dates;
/// - `role="img"` with a title and a description naming the series, the period and the extremes, for screen readers
///   and for anyone the picture does not reach.
/// Pure: values in, markup out. Every text is escaped (`Markup.escape`).
public struct LineChart: Sendable {
    public struct Point: Sendable {
        /// Seconds since 1970.
        public let time: Double
        public let value: Double
        /// The point's category as the reader should read it ("High blood pressure (stage 1)").
        public let label: String
        /// Outside the normal band: drawn as a diamond.
        public let abnormal: Bool

        public init(time: Double, value: Double, label: String, abnormal: Bool) {
            self.time = time
            self.value = value
            self.label = label
            self.abnormal = abnormal
        }
    }

    public struct Series: Sendable {
        public let name: String
        public let points: [Point]

        public init(name: String, points: [Point]) {
            self.name = name
            self.points = points
        }
    }

    /// A category's range on the value axis; an open end reaches the edge of the chart.
    public struct Band: Sendable {
        public let label: String
        public let from: Double?
        public let below: Double?
        /// How strongly it is shaded, 0 (none) to 3 (urgent).
        public let level: Int

        public init(label: String, from: Double?, below: Double?, level: Int) {
            self.label = label
            self.from = from
            self.below = below
            self.level = level
        }
    }

    public let id: String
    public let title: String
    public let unit: String
    public let series: [Series]
    public let bands: [Band]
    /// The period drawn, in seconds since 1970.
    public let start: Double
    public let end: Double

    public init(id: String, title: String, unit: String, series: [Series], bands: [Band] = [], start: Double, end: Double) {
        self.id = id
        self.title = title
        self.unit = unit
        self.series = series
        self.bands = bands
        self.start = start
        self.end = end
    }

    static let width = 720.0
    static let height = 260.0
    static let left = 56.0
    static let right = 170.0
    static let top = 16.0
    static let bottom = 40.0
    static let shades = ["#ffffff", "#fff4cc", "#ffe0b3", "#ffcccc"]
    static let dashes = ["", "6 4", "2 3", "10 3 2 3"]

    /// A description for those the picture does not reach.
    public var summary: String {
        let all = series.flatMap(\.points)
        guard let low = all.min(by: { $0.value < $1.value }), let high = all.max(by: { $0.value < $1.value }) else {
            return "\(title): no values from \(Self.date(start)) to \(Self.date(end))."
        }
        let names = series.map(\.name).joined(separator: " and ")
        let abnormal = all.filter(\.abnormal).count
        return "\(title), \(names), from \(Self.date(start)) to \(Self.date(end)): \(all.count) values, lowest "
            + "\(Markup.number(low.value)) \(unit) on \(Self.date(low.time)), highest \(Markup.number(high.value)) \(unit) on "
            + "\(Self.date(high.time)); \(abnormal) outside the normal range."
    }

    public var svg: String {
        let values = series.flatMap { $0.points.map(\.value) } + bands.flatMap { [$0.from, $0.below].compactMap { $0 } }
        let (low, high, step) = Self.niceRange(values.min() ?? 0, values.max() ?? 1)
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let span = max(end - start, 1)
        func x(_ time: Double) -> Double { Self.left + (time - start) / span * plotWidth }
        func y(_ value: Double) -> Double { Self.top + (1 - (value - low) / (high - low)) * plotHeight }
        func f(_ value: Double) -> String { Markup.number(value, decimals: 1) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 \(f(Self.width)) \(f(Self.height))" \
            aria-labelledby="\(id)-title \(id)-desc" class="chart"><title id="\(id)-title">\(Markup.escape(title))</title>\
            <desc id="\(id)-desc">\(Markup.escape(summary))</desc>
            """
        // Bands first, behind everything, each named in the right margin (lowest first, so each label can keep
        // clear of the one below it).
        var labelCeiling = Double.infinity
        for band in bands {
            let top = y(min(band.below ?? high, high))
            let bottom = y(max(band.from ?? low, low))
            guard bottom > top else { continue }
            svg += "<rect x=\"\(f(Self.left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(bottom - top))\" "
            svg += "fill=\"\(Self.shades[min(max(band.level, 0), 3)])\" stroke=\"#dddddd\" stroke-width=\"0.5\"/>"
            let lines = Self.wrap(band.label, width: 28)
            // Centred on its band, but above the label of the band below when bands are narrow.
            var firstLine = (top + bottom) / 2 + 4 - Double(lines.count - 1) * 5.5
            let lastLine = firstLine + Double(lines.count - 1) * 11
            if lastLine > labelCeiling - 11 { firstLine -= lastLine - (labelCeiling - 11) }
            labelCeiling = firstLine - 9
            svg += "<text x=\"\(f(Self.left + plotWidth + 6))\" y=\"\(f(firstLine))\" font-size=\"10\">"
            for (index, line) in lines.enumerated() {
                svg += "<tspan x=\"\(f(Self.left + plotWidth + 6))\" dy=\"\(index == 0 ? "0" : "11")\">\(Markup.escape(line))</tspan>"
            }
            svg += "</text>"
        }
        // Axes with their labels: five value ticks, and dates at the start, the middle and the end.
        svg += "<g font-size=\"11\" fill=\"#222222\">"
        // niceRange gives four to eight ticks; values that overflow its arithmetic get none rather than a trap.
        for tick in 0...min(Int(exactly: ((high - low) / step).rounded()) ?? 0, 10) {
            let value = low + Double(tick) * step
            svg += "<line x1=\"\(f(Self.left - 4))\" x2=\"\(f(Self.left))\" y1=\"\(f(y(value)))\" y2=\"\(f(y(value)))\" stroke=\"#222222\"/>"
            svg += "<text x=\"\(f(Self.left - 6))\" y=\"\(f(y(value) + 4))\" text-anchor=\"end\">\(Markup.number(value))</text>"
        }
        // The period's end is exclusive: its label is the last instant drawn.
        for (index, time) in [start, start + span / 2, end - 1].enumerated() {
            let anchor = ["start", "middle", "end"][index]
            svg += "<text x=\"\(f(x(time)))\" y=\"\(f(Self.height - Self.bottom + 16))\" text-anchor=\"\(anchor)\">\(Self.date(time))</text>"
        }
        svg += "<text x=\"12\" y=\"\(f(Self.top + plotHeight / 2))\" transform=\"rotate(-90 12 \(f(Self.top + plotHeight / 2)))\" "
        svg += "text-anchor=\"middle\">\(Markup.escape(unit))</text>"
        svg += "<line x1=\"\(f(Self.left))\" x2=\"\(f(Self.left))\" y1=\"\(f(Self.top))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"#222222\"/>"
        svg += "<line x1=\"\(f(Self.left))\" x2=\"\(f(Self.left + plotWidth))\" y1=\"\(f(Self.top + plotHeight))\" "
        svg += "y2=\"\(f(Self.top + plotHeight))\" stroke=\"#222222\"/></g>"
        // The series: a line, then its points, each with its own title.
        for (index, series) in series.enumerated() {
            let dash = Self.dashes[index % Self.dashes.count]
            let path = series.points.map { "\(f(x($0.time))),\(f(y($0.value)))" }.joined(separator: " ")
            svg += "<g class=\"series\"><polyline points=\"\(path)\" fill=\"none\" stroke=\"#1f4e79\" stroke-width=\"1.5\""
            svg += dash.isEmpty ? "/>" : " stroke-dasharray=\"\(dash)\"/>"
            for point in series.points {
                let (px, py) = (x(point.time), y(point.value))
                let label = "\(Self.date(point.time)): \(series.name) \(Markup.number(point.value)) \(unit), \(point.label)"
                if point.abnormal {
                    svg += "<path d=\"M\(f(px)) \(f(py - 5))L\(f(px + 5)) \(f(py))L\(f(px)) \(f(py + 5))L\(f(px - 5)) \(f(py))Z\" fill=\"#b00020\">"
                } else {
                    svg += "<circle cx=\"\(f(px))\" cy=\"\(f(py))\" r=\"2.5\" fill=\"#1f4e79\">"
                }
                svg += "<title>\(Markup.escape(label))</title>" + (point.abnormal ? "</path>" : "</circle>")
            }
            svg += "</g>"
        }
        // The legend says which line is which, by its dash.
        for (index, series) in series.enumerated() {
            let legendY = Self.height - 10
            let legendX = Self.left + Double(index) * 150
            let dash = Self.dashes[index % Self.dashes.count]
            svg += "<line x1=\"\(f(legendX))\" x2=\"\(f(legendX + 24))\" y1=\"\(f(legendY - 4))\" y2=\"\(f(legendY - 4))\" stroke=\"#1f4e79\""
            svg += dash.isEmpty ? "/>" : " stroke-dasharray=\"\(dash)\"/>"
            svg += "<text x=\"\(f(legendX + 28))\" y=\"\(f(legendY))\" font-size=\"11\">\(Markup.escape(series.name))</text>"
        }
        return svg + "</svg>"
    }

    /// A value range with some room around the values, on ticks of 1, 2, 2.5 or 5 times a power of ten, four to
    /// eight of them.
    static func niceRange(_ low: Double, _ high: Double) -> (low: Double, high: Double, step: Double) {
        let span = max(high - low, 1)
        // Whole powers of ten are all a tick step needs.
        let magnitude = pow(10, log10(span / 5).rounded(.down))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { span / $0 <= 6 } ?? 10 * magnitude
        let bottom = ((low - span * 0.05) / step).rounded(.down) * step
        let top = ((high + span * 0.05) / step).rounded(.up) * step
        return (bottom, top > bottom ? top : bottom + step, step)
    }

    /// Words in lines of at most `width` characters (a longer word keeps its own line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        return lines.isEmpty && line.isEmpty ? [""] : lines + (line.isEmpty ? [] : [line])
    }

    /// `YYYY-MM-DD` in UTC (`Timestamp.formatDay`), so charts never depend on a locale.
    public static func date(_ seconds: Double) -> String { Timestamp.formatDay(Date(timeIntervalSince1970: seconds)) }
}
