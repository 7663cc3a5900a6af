/// Version of the clinical rule set implemented by this module.
///
/// Every assessment produced by `CaretideDomain` records this string (`ruleSetVersion`) so that a stored
/// result can always be traced back to the exact thresholds that produced it. Bump it whenever any threshold,
/// weight, boundary convention or text key changes (format `YYYY.MM.patch`).
///
/// The thresholds of this version are listed, with their sources, in `docs/clinical-rules.md`.
public enum RuleSetVersion {
    /// The rule-set version recorded in every assessment.
    public static let current: String = "2026.11.4"
}
