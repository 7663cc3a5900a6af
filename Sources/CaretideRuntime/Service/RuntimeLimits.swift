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
    /// How many lanes may apply consumed events side by side, each a transaction at a time, a partition in one lane
    /// at a time. `CONSUMER_LANES`, default 2. A second lane starts only on a backlog (`MessageLanes`): under a light
    /// load one lane applies everything in batches as large as the load makes them, since a batch's statements are
    /// shared by its events; a backlog (a fan-out, a burst, a consumer catching up) brings the others in. Measured on
    /// two cores (BENCHMARKS.md, "Consumer lanes that share the work").
    public var consumerLanes = 2

    public init() {}
}
