/// `Accept-Language` (RFC 9110 §12.5.4): which languages a caller prefers, for whatever a service answers in the
/// caller's language.
public enum AcceptLanguage {
    /// The language ranges of an `Accept-Language` value, most preferred first (by `q`, then order); ranges with
    /// q=0 are left out.
    public static func ranges(_ header: String?) -> [String] {
        guard let header else { return [] }
        var weighted: [(range: String, q: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingBlanks() }
            guard let range = pieces.first?.lowercased(), !range.isEmpty, range.count <= 35 else { continue }
            var q = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2).trimmingBlanks()) ?? 0
            }
            if q > 0 { weighted.append((range, q, order)) }
        }
        return weighted.sorted { $0.q != $1.q ? $0.q > $1.q : $0.order < $1.order }.map(\.range)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace): Foundation's trimming is slow and
    /// wants a character set, and every request's Authorization header is trimmed.
    func trimmingBlanks() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
