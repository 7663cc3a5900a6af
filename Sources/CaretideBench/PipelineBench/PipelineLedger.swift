import CaretideRuntime
import Foundation
import Histogram
import Synchronization

/// What the bench sent and what came of it, by trace id: the requests' acceptance, the assessments on
/// `caretide.scores` and the alerts on `caretide.alerts` that carry the same trace, and the latencies between them.
/// Shared by the traffic lanes (which record acceptances) and the watcher (which records arrivals).
final class PipelineLedger: Sendable {
    /// One accepted request and what it caused so far.
    struct Trace {
        let kind: PipelineKind
        /// What the request causes (for a sync, once its answer says how many of its changes were recorded).
        var expectedAssessments: Int
        var expectedAlerts: Int
        var acceptedAt: ContinuousClock.Instant?
        /// Assessment ids by subject (measurement, NPI or profile id): more than one for a subject is a duplicate.
        var assessments: [String: Set<UUID>] = [:]
        /// Alert ids by what an alert is for (source event, recipient, category): more than one is a duplicate.
        var alerts: [String: Set<UUID>] = [:]
        /// Care-tracking alerts that followed (the trend rules over the patient's series), by purpose.
        var followOns: [String: Set<UUID>] = [:]
        /// Arrivals seen before the request's answer reached the bench (the relay can beat the HTTP answer).
        var early: [ContinuousClock.Instant] = []
        /// When the first of its assessments was produced (its message's timestamp), for the alert hop's stage.
        var assessedAt: Date?

        /// Every assessment and alert id that arrived (subjects and purposes count each id once).
        var arrivedIDs: Int { (Array(assessments.values) + Array(alerts.values)).reduce(0) { $0 + $1.count } }
        var complete: Bool { assessments.count >= expectedAssessments && alerts.count >= expectedAlerts }
    }

    struct State {
        var traces: [String: Trace] = [:]
        /// End-to-end latency per kind, in microseconds.
        var endToEnd: [PipelineKind: Histogram<UInt64>] = [:]
        /// Every end's latency by the second of the run its request was accepted in: shows whether the tail is
        /// spread over the run (queueing) or gathered in a few seconds (a stall, and what happened then).
        var endToEndBySecond: [Int: Histogram<UInt64>] = [:]
        /// The same by kind, so that a slow second says which ends it held back.
        var kindsBySecond: [Int: [PipelineKind: Histogram<UInt64>]] = [:]
        /// Every end's latency in three stages, by the same seconds, from the producers' clocks on the messages: the
        /// request's acceptance to ingest's event on its topic, that event to the end's message (scoring's and
        /// notification's work), and the end's message to the bench's receipt (the broker's and the bench's).
        var stagesBySecond: [Int: [PipelineStage: Histogram<UInt64>]] = [:]
        /// When ingest published each trace's first event.
        var ingestPublished: [String: Date] = [:]
        /// When the load began, on either clock: the origin of the seconds above.
        var loadStart = (instant: ContinuousClock.now, date: Date())
        /// The HTTP answer's latency per kind, in microseconds.
        var answered: [PipelineKind: Histogram<UInt64>] = [:]
        var acceptedEvents: [PipelineKind: Int] = [:]
        var acceptedRequests: [PipelineKind: Int] = [:]
        var refused: [PipelineKind: [Int: Int]] = [:]
        var failed: [PipelineKind: Int] = [:]
        /// The same message (event id) delivered twice: at-least-once transport, dropped by consumers by its id.
        var redelivered = 0
        var seenEvents: Set<UUID> = []
        /// Messages with the bench's trace prefix but a trace it never sent, or that could not be read.
        var unknownTraces = 0
        var unreadable = 0
        /// The last awaited assessment or alert (the end of some request's pipeline).
        var lastArrival: ContinuousClock.Instant?
        var downstream = 0
        /// Why the watcher stopped, if it failed: then arrivals are missing for a reason of the bench's own.
        var watcherFailure: String?

        /// Events accepted of the kinds that go through ingest → scoring → notification.
        var pipelineEvents: Int { acceptedEvents.filter(\.key.flowsThroughPipeline).values.reduce(0, +) }
        /// Requests (or a sync's changes) refused, and requests not answered.
        var refusedCount: Int { refused.values.flatMap(\.values).reduce(0, +) }
        var unansweredCount: Int { failed.values.reduce(0, +) }
    }

    /// What the progress line shows, without copying the ledger.
    struct Counters {
        let acceptedEvents: Int
        let downstream: Int
        let errors: Int
        let awaited: Int
    }

    private let state = Mutex(State())

    static func histogram() -> Histogram<UInt64> {
        // 1 µs to 10 minutes, three significant digits.
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }

    private static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    /// A request is about to be sent: what it causes is expected under its trace id from now on (the outbox relay
    /// can publish before the HTTP answer reaches the bench).
    func sending(_ request: PipelineRequest, trace: String) {
        guard request.kind.flowsThroughPipeline else { return }
        state.withLock { $0.traces[trace] = Trace(kind: request.kind, expectedAssessments: request.assessments, expectedAlerts: request.alerts) }
    }

    /// A request was answered with success: its events count, and its latency clock starts. `recorded`: how many of
    /// a sync's changes its answer says were recorded (the others cause nothing and are counted as refused).
    func accepted(
        _ request: PipelineRequest, trace: String, sentAt: ContinuousClock.Instant, at now: ContinuousClock.Instant, recorded: Int? = nil
    ) {
        state.withLock { state in
            let events = recorded ?? request.events
            state.acceptedEvents[request.kind, default: 0] += events
            state.acceptedRequests[request.kind, default: 0] += 1
            if events < request.events { state.refused[request.kind, default: [:]][200, default: 0] += request.events - events }
            state.answered[request.kind, default: Self.histogram()].record(Self.microseconds(now - sentAt))
            guard var record = state.traces[trace] else { return }
            record.acceptedAt = now
            if let recorded { record.expectedAssessments = recorded }
            // What arrived before the answer was faster than the answer: no latency after acceptance.
            for _ in record.early { state.recordEnd(request.kind, latency: 0, acceptedAt: now) }
            record.early = []
            state.traces[trace] = record
        }
    }

    /// A request answered with an error (or no answer): nothing it would have caused is expected, and anything that
    /// arrives for it anyway is reported.
    func refused(_ request: PipelineRequest, trace: String, status: Int?) {
        state.withLock { state in
            if let status { state.refused[request.kind, default: [:]][status, default: 0] += 1 } else { state.failed[request.kind, default: 0] += 1 }
        }
    }

    /// A downstream message (an assessment or an alert) with one of the bench's trace ids.
    enum Arrival {
        case assessment(eventID: UUID, assessmentID: UUID, subjectID: String)
        /// `purpose`: what the alert is for (source event, recipient, category); two alert ids for one is a duplicate.
        case alert(eventID: UUID, alertID: UUID, purpose: String)
        /// A care-tracking alert the request's reading completed (three stage-2 readings in a row, say).
        case followOn(eventID: UUID, alertID: UUID, purpose: String)
    }

    /// The load begins now: the seconds of the timelines count from here.
    func loadStarts() { state.withLock { $0.loadStart = (.now, Date()) } }

    /// One of ingest's events with one of the bench's trace ids, produced at `producedAt` (its message's timestamp).
    func ingestPublished(trace: String, producedAt: Date) {
        state.withLock { state in
            if state.ingestPublished[trace].map({ producedAt < $0 }) ?? true { state.ingestPublished[trace] = producedAt }
        }
    }

    /// `producedAt`: the arrival's message timestamp (its producer's clock).
    func arrived(_ arrival: Arrival, trace: String, at now: ContinuousClock.Instant, producedAt: Date?) {
        state.withLock { state in
            let eventID: UUID
            switch arrival {
            case .assessment(let id, _, _), .alert(let id, _, _), .followOn(let id, _, _): eventID = id
            }
            guard state.seenEvents.insert(eventID).inserted else {
                state.redelivered += 1
                return
            }
            state.downstream += 1
            guard var record = state.traces[trace] else {
                state.unknownTraces += 1
                return
            }
            let ends: Bool
            switch arrival {
            case .assessment(_, let assessment, let subject):
                ends = record.kind.endsAtAssessment
                record.assessments[subject, default: []].insert(assessment)
                if let producedAt { record.assessedAt = min(record.assessedAt ?? producedAt, producedAt) }
            case .alert(_, let alert, let purpose):
                ends = !record.kind.endsAtAssessment
                record.alerts[purpose, default: []].insert(alert)
            case .followOn(_, let alert, let purpose):
                ends = false
                record.followOns[purpose, default: []].insert(alert)
            }
            if ends {
                state.lastArrival = now
                if let acceptedAt = record.acceptedAt {
                    state.recordEnd(record.kind, latency: Self.microseconds(now - acceptedAt), acceptedAt: acceptedAt)
                    if let producedAt, let published = state.ingestPublished[trace], record.kind.flowsThroughPipeline {
                        let second = state.second(of: acceptedAt)
                        let accepted = state.date(of: acceptedAt)
                        let arrivedAt = state.date(of: now)
                        var stages = [
                            (PipelineStage.ingest, published.timeIntervalSince(accepted)),
                            (.services, producedAt.timeIntervalSince(published)), (.lastHop, arrivedAt.timeIntervalSince(producedAt)),
                        ]
                        // An alert that follows an assessment of the same trace (an urgent reading's): notification's part.
                        if let assessedAt = record.assessedAt, !record.kind.endsAtAssessment {
                            stages.append((.alertHop, producedAt.timeIntervalSince(assessedAt)))
                        }
                        for (stage, interval) in stages {
                            state.stagesBySecond[second, default: [:]][stage, default: Self.histogram()].record(UInt64(max(0, interval * 1_000_000)))
                        }
                    }
                } else {
                    record.early.append(now)
                }
            }
            state.traces[trace] = record
        }
    }

    func unreadable() { state.withLock { $0.unreadable += 1 } }
    func watcherFailed(_ error: any Error) { state.withLock { $0.watcherFailure = "\(error)" } }

    /// The whole ledger, for the report at the end.
    var snapshot: State { state.withLock { $0 } }

    var counters: Counters {
        state.withLock { state in
            Counters(
                acceptedEvents: state.pipelineEvents, downstream: state.downstream, errors: state.refusedCount + state.unansweredCount,
                awaited: state.traces.values.count { $0.acceptedAt != nil && !$0.complete })
        }
    }
}

/// The stages of an end's latency (`PipelineLedger.State.stagesBySecond`).
enum PipelineStage: String, CaseIterable {
    case ingest = "acceptance to ingest's event"
    case services = "ingest's event to the end's message"
    case lastHop = "the end's message to the bench"
    /// Part of `services`, for the alerts that follow an assessment (urgent readings): the assessment's message to
    /// the alert's, notification's work. Recorded when the assessment reached the bench first.
    case alertHop = "an assessment to its alert (within the services)"
}

extension PipelineLedger.State {
    /// One end's latency (µs), by kind and, for the kinds that flow through the pipeline, by second of acceptance.
    mutating func recordEnd(_ kind: PipelineKind, latency: UInt64, acceptedAt: ContinuousClock.Instant) {
        endToEnd[kind, default: PipelineLedger.histogram()].record(latency)
        guard kind.flowsThroughPipeline else { return }
        let second = second(of: acceptedAt)
        endToEndBySecond[second, default: PipelineLedger.histogram()].record(latency)
        kindsBySecond[second, default: [:]][kind, default: PipelineLedger.histogram()].record(latency)
    }

    /// The second of the load `instant` fell in (0 for the first).
    // bounded: whole seconds of a Duration, already an integer.
    func second(of instant: ContinuousClock.Instant) -> Int { max(0, Int((instant - loadStart.instant).components.seconds)) }

    /// `instant` on the wall clock (the clock of the messages' timestamps).
    func date(of instant: ContinuousClock.Instant) -> Date { loadStart.date.addingTimeInterval((instant - loadStart.instant).seconds) }
}

extension PipelineKind {
    /// Kinds whose pipeline ends at the assessment (no notification is due); the others end at an alert.
    var endsAtAssessment: Bool { self == .reading || self == .sync || self == .npi || self == .risk }
}

/// The reconciliation at the end: per kind, what was expected, what arrived, what is missing and what came twice.
struct PipelineReconciliation {
    struct Row {
        var requests = 0
        var expectedAssessments = 0, assessments = 0, missingAssessments = 0, duplicateAssessments = 0
        var expectedAlerts = 0, alerts = 0, missingAlerts = 0, duplicateAlerts = 0, extraAlerts = 0
        var followOns = 0
    }

    let rows: [PipelineKind: Row]
    /// Assessments and alerts caused by requests answered with an error, or not answered at all.
    let causedUnanswered: Int
    /// Requests (or a sync's changes) refused, and requests not answered.
    let refused: Int
    let unanswered: Int
    let unknownTraces: Int
    let watcherFailure: String?

    init(_ state: PipelineLedger.State) {
        var rows: [PipelineKind: Row] = [:]
        var causedUnanswered = 0
        for trace in state.traces.values {
            guard trace.acceptedAt != nil else {
                causedUnanswered += trace.arrivedIDs
                continue
            }
            var row = rows[trace.kind] ?? Row()
            row.requests += 1
            row.expectedAssessments += trace.expectedAssessments
            row.assessments += trace.assessments.count
            row.missingAssessments += max(0, trace.expectedAssessments - trace.assessments.count)
            row.duplicateAssessments += trace.assessments.values.reduce(0) { $0 + $1.count - 1 }
            row.expectedAlerts += trace.expectedAlerts
            row.alerts += trace.alerts.count
            row.missingAlerts += max(0, trace.expectedAlerts - trace.alerts.count)
            row.extraAlerts += max(0, trace.alerts.count - trace.expectedAlerts)
            row.duplicateAlerts += trace.alerts.values.reduce(0) { $0 + $1.count - 1 } + trace.followOns.values.reduce(0) { $0 + $1.count - 1 }
            row.followOns += trace.followOns.count
            rows[trace.kind] = row
        }
        self.rows = rows
        self.causedUnanswered = causedUnanswered
        refused = state.refusedCount
        unanswered = state.unansweredCount
        unknownTraces = state.unknownTraces + state.unreadable
        watcherFailure = state.watcherFailure
    }

    var lost: Int { rows.values.reduce(0) { $0 + $1.missingAssessments + $1.missingAlerts } }
    var duplicated: Int { rows.values.reduce(0) { $0 + $1.duplicateAssessments + $1.duplicateAlerts } }
    var extra: Int { rows.values.reduce(0) { $0 + $1.extraAlerts } }

    /// Nothing missing, nothing twice, nothing unexpected, and every request answered with success: a refused request
    /// is a failure of the run too (a bench that measured refusals measured something else).
    var reconciled: Bool {
        lost == 0 && duplicated == 0 && extra == 0 && causedUnanswered == 0 && refused == 0 && unanswered == 0 && unknownTraces == 0
            && watcherFailure == nil
    }
}
