/// The bounds that keep one bad message, one slow client or one database outage from stopping a service for good.
/// Every field has a variable (see `ServiceConfiguration.fromEnvironment`) and a default meant for production.
public struct RuntimeLimits: Sendable, Equatable {
    /// A consumer lane or the relay that holds one unit of work longer than this shows in `/readyz` (503) and in
    /// `caretide_worker_busy_seconds`. `STALL_THRESHOLD_SECONDS`, default 60.
    public var stallThreshold: Duration = .seconds(60)
    /// One consumer or relay transaction is given up (and retried) after this. `DATABASE_TRANSACTION_TIMEOUT_SECONDS`,
    /// default 30: above the statements' own `statement_timeout` would be pointless for a batch of small statements.
    public var transactionTimeout: Duration = .seconds(30)
    /// Retriable dead-letter publish failures are retried this long, then the message is parked in PostgreSQL.
    /// `DEAD_LETTER_PUBLISH_DEADLINE_SECONDS`, default 30.
    public var deadLetterPublishDeadline: Duration = .seconds(30)
    /// A connection that sends nothing for this long (an idle keep-alive, a half-sent request) is closed.
    /// `HTTP_IDLE_TIMEOUT_SECONDS`, default 30.
    public var httpIdleTimeout: Duration = .seconds(30)
    /// How many lanes apply consumed events side by side, each a transaction at a time over its share of the
    /// partitions. `CONSUMER_LANES`, default 1. Fewer lanes make larger batches: a batch's statements are shared by
    /// its events, so one lane costs the least per event. More lanes keep one lane's long batch (an area's UV alert to
    /// every subscriber) from holding up the partitions of the others, at that price. Measured on two cores
    /// (BENCHMARKS.md, "One consumer lane"): the single POST took 2.23-2.36 ms of machine CPU per request with one
    /// lane against 2.49-2.89 ms with two, and the pipeline at 1,000 events/s ended p99 2.8 s behind with one lane
    /// and 5.4 s with two on a machine too slow to keep up; in a faster phase (2026-11-24) one lane's p99 was 267 ms
    /// against 226 ms, in one run each.
    public var consumerLanes = 1

    public init() {}
}
