import Foundation

/// Text made safe for the place it goes in a page or an SVG: every text that reaches a report (item names,
/// institutions' comments, the patient's own words) passes through here, so markup in it stays text.
public enum Markup {
    /// For element content and for attribute values in double quotes: `& < > " '` become character references.
    /// Control characters other than tab and line breaks are dropped (XML 1.0 cannot carry them).
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A number as a chart writes it: at most `decimals` places, no trailing zeros, never an exponent.
    public static func number(_ value: Double, decimals: Int = 1) -> String {
        guard value.isFinite else { return "–" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        // Every digit of a whole number, however large: a value a client sent may exceed what Int holds, and a
        // report must render whatever was stored.
        if rounded == rounded.rounded() || !rounded.isFinite { return Int(exactly: rounded).map(String.init) ?? String(format: "%.0f", rounded) }
        let text = String(rounded)
        return text.contains("e") ? String(format: "%.*f", decimals, rounded) : text
    }
}
