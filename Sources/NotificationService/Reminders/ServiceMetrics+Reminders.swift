import CaretideRuntime

extension ServiceMetrics {
    /// How long the oldest piece of scheduled work a job should have done is overdue (0: none), after its last round.
    /// (The label is `scheduler`, not `job`: Prometheus keeps `job` for the scrape target.)
    func schedulerOverdue(_ scheduler: String, seconds: Double) {
        set("caretide_scheduler_overdue_seconds", dimensions: [("scheduler", scheduler)], to: seconds)
    }
}
