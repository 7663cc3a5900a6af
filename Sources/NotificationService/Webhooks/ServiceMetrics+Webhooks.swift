import CaretideRuntime

extension ServiceMetrics {
    /// One attempt to deliver a message to a webhook, by what followed it: `delivered`, `retry` or `dead`.
    func webhookAttempt(outcome: String) { count("caretide_webhook_attempts_total", dimensions: [("outcome", outcome)]) }
}
