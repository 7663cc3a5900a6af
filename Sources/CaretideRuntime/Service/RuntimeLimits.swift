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
    /// The shortest time between two small batches (under 100 events) a service's consumer applies, so that a
    /// steady trickle is applied in batches of what arrived meanwhile rather than an event or two at a time; the first
    /// batch after a quiet spell, every batch after one of fewer than 8 events (a light load), a backlog and a
    /// shutdown's last batch go at once (`MessageLanes`).
    /// `CONSUMER_BATCH_WINDOW_MS`, 0 turns it off; unset (nil), the handler's own window (`EventHandler.batchWindow`:
    /// notification-service's is 20 ms) or else `defaultConsumerBatchWindow`. A batch's statements and round trips are
    /// shared by its events, so under a steady load of single readings the whole stack spends about a quarter less CPU
    /// a reading with it, each hop waiting at most the window (BENCHMARKS.md, "A window for small batches").
    public var consumerBatchWindow: Duration?
    public static let defaultConsumerBatchWindow = Duration.milliseconds(50)
    /// How long a group commit's batch that is not full waits after the last commit for more writes, under a load
    /// (the last batch held at least 8): the clients that commit answered send their next writes meanwhile, and one
    /// transaction carries them (`GroupCommitQueue`). A light load and a full batch go at once. `GROUP_COMMIT_WINDOW_MS`,
    /// default 3, 0 turns it off. Each request under a load waits up to the window for a share of fewer statements,
    /// commits and wake-ups (BENCHMARKS.md, "A window for group commits").
    public var groupCommitWindow: Duration = .milliseconds(3)
    /// A consumer forgets that it applied an event this long after it did (`ProcessedEventExpiry`). It must outlast
    /// the retention of every topic the service consumes and of the dead-letter topic, since a dead letter replayed
    /// is published to its source topic again and read by every group there. `PROCESSED_EVENTS_RETENTION_DAYS`,
    /// default 60: twice the month at most a patient topic keeps its events (docs/operations.md, "Kafka's own copies").
    public var processedEventRetention: Duration = .seconds(60 * 86_400)

    public init() {}
}
