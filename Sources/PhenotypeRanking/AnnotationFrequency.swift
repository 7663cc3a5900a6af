/// How often a disease shows an annotated phenotype: the `frequency` column of `phenotype.hpoa`, as a share in 0...1.
///
/// The HPO annotation format (hpo-annotation-format, "phenotype.hpoa", column 8) allows three forms:
/// - a term of the Frequency subontology (HP:0040279), read at the middle of the range HPO gives it: Obligate
///   (HP:0040280, always present) 1, Very frequent (HP:0040281, 80–99 %) 0.895, Frequent (HP:0040282, 30–79 %)
///   0.545, Occasional (HP:0040283, 5–29 %) 0.17, Very rare (HP:0040284, 1–4 %) 0.025, Excluded (HP:0040285,
///   0 %) 0;
/// - a count of patients `n/m` (7 of 13 patients of the cited study: 7/13), with `0 ≤ n ≤ m` and `m > 0`, read by
///   Laplace's rule of succession as `(n + 1) / (m + 2)`: 3 of 3 patients is 0.8, not yet "always" (measured on
///   published cases, docs/clinical-rules.md §11: read as n/m, small all-of-them counts made exclusions misfire);
/// - a percentage `p%`, with `0 ≤ p ≤ 100` (`17%`, `12.5%`).
/// An empty field is unknown (nil): most older annotations give none. Anything else is malformed and also read as
/// unknown, so the annotation still counts as an annotation.
public enum AnnotationFrequency {
    /// The share of each Frequency subontology term: the middle of the range HPO defines for it.
    public static let termShares: [String: Double] = [
        "HP:0040280": 1,  // Obligate: always present
        "HP:0040281": 0.895,  // Very frequent: 80–99 %
        "HP:0040282": 0.545,  // Frequent: 30–79 %
        "HP:0040283": 0.17,  // Occasional: 5–29 %
        "HP:0040284": 0.025,  // Very rare: 1–4 %
        "HP:0040285": 0,  // Excluded: 0 %
    ]

    /// The share `text` gives, or nil when it is empty or malformed.
    public static func share(_ text: String) -> Double? {
        let field = text.trimmingWhitespace()
        guard !field.isEmpty, field.utf8.count <= 32 else { return nil }
        if let share = termShares[field] { return share }
        if field.hasSuffix("%") {
            guard let percent = decimal(field.dropLast()), percent <= 100 else { return nil }
            return percent / 100
        }
        let parts = field.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = count(parts[0]), let m = count(parts[1]), m > 0, n <= m else { return nil }
        return (Double(n) + 1) / (Double(m) + 2)
    }

    /// A non-negative whole number of at most nine digits (a count of patients).
    private static func count(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// A non-negative decimal such as `17` or `12.5` (no sign, no exponent).
    private static func decimal(_ text: Substring) -> Double? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.first != 0x2E, digits.last != 0x2E,
            digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }), digits.filter({ $0 == 0x2E }).count <= 1
        else { return nil }
        return Double(text)
    }
}
