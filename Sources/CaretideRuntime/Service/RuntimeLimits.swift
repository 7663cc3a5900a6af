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
    /// partitions. `CONSUMER_LANES`, default 1: one lane's batches grow with the load, and fewer, larger transactions
    /// cost the database less than several small ones at once (on two cores, 1,531 against 1,377 readings a second
    /// with three lanes: BENCHMARKS.md). Raise it where the database has cores to spare and a lane is the bottleneck.
    public var consumerLanes = 1

    public init() {}
}
