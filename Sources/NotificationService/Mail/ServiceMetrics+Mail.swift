import CaretideRuntime

extension ServiceMetrics {
    /// One attempt to hand a report e-mail to the relay, by what followed it: `sent`, `retry` or `failed`.
    func reportEmailAttempt(outcome: String) { count("caretide_report_email_attempts_total", dimensions: [("outcome", outcome)]) }
}
