import CaretideRuntime
import Foundation
import Histogram

/// The bench's closing report: throughput, latencies per kind, and the reconciliation.
struct PipelineReport {
    let text: String
    let reconciled: Bool

    init(
        state: PipelineLedger.State, start: ContinuousClock.Instant, loadStopped: ContinuousClock.Instant, seconds: Int, rate: Int, connections: Int,
        patients: Int, cpu: [(name: String, cores: Double)], cpuBySecond: [[(name: String, cores: Double)]]
    ) {
        let loadSeconds = (loadStopped - start).seconds
        let pipelineEvents = state.pipelineEvents
        let reconciliation = PipelineReconciliation(state)
        var lines: [String] = []
        lines.append(
            "pipeline: \(rate == 0 ? "as fast as the stack answers" : "\(rate) events/s asked") for \(seconds) s, \(connections) connections, \(patients) patients"
        )
        lines.append(
            String(
                format: "accepted by ingest: %d events in %.1f s = %.0f events/s (%d requests)",
                pipelineEvents, loadSeconds, Double(pipelineEvents) / loadSeconds,
                state.acceptedRequests.filter(\.key.flowsThroughPipeline).values.reduce(0, +)))
        if let last = state.lastArrival {
            // Through the whole pipeline: from the first request to the last assessment or alert it caused.
            let through = (last - start).seconds
            lines.append(
                String(
                    format: "through the pipeline: the last assessment or alert arrived %.1f s after the load stopped: %.0f events/s end to end",
                    max(0, (last - loadStopped).seconds), Double(pipelineEvents) / through))
        }
        if let diagnoses = state.acceptedRequests[.diagnosis] {
            lines.append(
                String(format: "diagnosis rankings: %d answered (%.0f/s), outside the pipeline's events", diagnoses, Double(diagnoses) / loadSeconds))
        }
        lines.append("")
        lines.append("kind            requests   events   answer p50/p99 ms   end to end p50 / p90 / p99 / max ms   (ends at)")
        for kind in PipelineKind.allCases {
            guard let requests = state.acceptedRequests[kind] else { continue }
            let answer = state.answered[kind].map { "\(Self.ms($0, 50)) / \(Self.ms($0, 99))" } ?? "-"
            let endToEnd = state.endToEnd[kind].map(Self.percentiles) ?? "-"
            lines.append(
                kind.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)
                    + String(format: "%9d %8d", requests, state.acceptedEvents[kind] ?? 0) + "   "
                    + answer.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + endToEnd.padding(toLength: 39, withPad: " ", startingAt: 0) + kind.end)
        }
        var every = PipelineLedger.histogram()
        for (kind, histogram) in state.endToEnd where kind.flowsThroughPipeline { every.add(histogram) }
        if every.totalCount > 0 {
            lines.append(
                "every end (\(every.totalCount) assessments and alerts awaited)".padding(toLength: 55, withPad: " ", startingAt: 0)
                    + Self.percentiles(every))
        }
        if let timeline = Self.timeline(state.endToEndBySecond, kinds: state.kindsBySecond, stages: state.stagesBySecond, cpu: cpuBySecond) {
            lines.append(timeline)
        }
        let refused = state.refused.flatMap { kind, statuses in statuses.map { "\(kind.rawValue) \($0.key): \($0.value)" } }.sorted()
        let failed = state.failed.map { "\($0.key.rawValue): \($0.value)" }.sorted()
        if !refused.isEmpty { lines.append("refused: " + refused.joined(separator: ", ")) }
        if !failed.isEmpty { lines.append("no answer: " + failed.joined(separator: ", ")) }
        lines.append("")
        lines.append("reconciliation (per accepted request, by its trace id):")
        for kind in PipelineKind.allCases {
            guard let row = reconciliation.rows[kind] else { continue }
            var parts: [String] = []
            if row.expectedAssessments > 0 || row.assessments > 0 {
                parts.append(
                    "assessments \(row.assessments)/\(row.expectedAssessments), missing \(row.missingAssessments), twice \(row.duplicateAssessments)")
            }
            if row.expectedAlerts > 0 || row.alerts > 0 {
                parts.append(
                    "alerts \(row.alerts)/\(row.expectedAlerts), missing \(row.missingAlerts), twice \(row.duplicateAlerts), unexpected \(row.extraAlerts)"
                )
            }
            if row.followOns > 0 { parts.append("care-tracking alerts that followed \(row.followOns)") }
            lines.append("  " + kind.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0) + parts.joined(separator: "; "))
        }
        lines.append("  messages delivered again (same event id, dropped by consumers): \(state.redelivered)")
        if reconciliation.causedUnanswered > 0 {
            lines.append("  assessments or alerts of requests answered with an error or not at all: \(reconciliation.causedUnanswered)")
        }
        if reconciliation.unknownTraces > 0 {
            lines.append("  messages with this run's trace prefix that match no request or cannot be read: \(reconciliation.unknownTraces)")
        }
        if let failure = reconciliation.watcherFailure { lines.append("  the watcher of the topics failed: \(failure)") }
        lines.append("")
        let busy = cpu.reduce(0) { $0 + $1.cores }
        lines.append(
            String(
                format: "cores kept busy during the load, by process on this machine (%.2f of %d):", busy,
                ProcessInfo.processInfo.activeProcessorCount))
        for (name, cores) in cpu { lines.append(String(format: "  %5.2f  %@", cores, name)) }
        reconciled = reconciliation.reconciled
        lines.append(
            reconciled
                ? "RECONCILED: nothing lost, nothing twice"
                : "NOT RECONCILED: \(reconciliation.lost) missing, \(reconciliation.duplicated) twice, \(reconciliation.extra) unexpected, "
                    + "\(reconciliation.refused) refused, \(reconciliation.unanswered) unanswered")
        text = lines.joined(separator: "\n") + "\n"
    }

    /// Every end's p99 for each second of the run (by when its request was accepted), and the worst seconds' share of
    /// the run's tail: a tail spread over every second is queueing; one gathered in a few seconds is a stall.
    private static func timeline(
        _ bySecond: [Int: Histogram<UInt64>], kinds: [Int: [PipelineKind: Histogram<UInt64>]], stages: [Int: [PipelineStage: Histogram<UInt64>]],
        cpu: [[(name: String, cores: Double)]]
    ) -> String? {
        guard let last = bySecond.keys.max() else { return nil }
        var every = PipelineLedger.histogram()
        for histogram in bySecond.values { every.add(histogram) }
        let runP99 = every.valueAtPercentile(99)
        let slowest = bySecond.mapValues { $0.count(within: runP99...UInt64.max) }
        let tail = slowest.values.reduce(0, +)
        let worst = slowest.sorted { $0.value > $1.value }.prefix(3)
        let worstShare = tail == 0 ? 0 : 100 * Double(worst.reduce(0) { $0 + $1.value }) / Double(tail)
        let seconds = (0...last).map { bySecond[$0].map { ms($0, 99) } ?? "-" }
        let stageLines = PipelineStage.allCases.map { stage in
            "  p99 of \(stage.rawValue): " + (0...last).map { stages[$0]?[stage].map { ms($0, 99) } ?? "-" }.joined(separator: " ") + "\n"
        }
        // The cores every process together, and each busy one, kept busy in each second.
        let busiest = Set(cpu.flatMap { $0.filter { $0.cores >= 0.1 }.map(\.name) }).sorted()
        let coreLines = ([nil] + busiest.map(Optional.some)).map { (name: String?) in
            "  cores busy, \(name ?? "every process"): "
                + cpu.map { second in String(format: "%.2f", second.filter { name == nil || $0.name == name }.reduce(0) { $0 + $1.cores }) }
                .joined(separator: " ") + "\n"
        }
        // Which ends each of the worst seconds held back: their kinds' p99 in that second.
        let worstKinds = worst.map { second, _ in
            "\n    s\(second): "
                + (kinds[second] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \(ms($0.value, 99))" }.joined(separator: ", ")
        }
        return "every end's p99 by second of acceptance (ms): " + seconds.joined(separator: " ") + "\n" + stageLines.joined() + coreLines.joined()
            + String(
                format: "  the slowest 1 %% (over %.1f ms): %.0f %% of it accepted in the worst three seconds (%@); their kinds' p99 (ms):",
                Double(runP99) / 1000, worstShare, worst.map { "s\($0.key): \($0.value)" }.joined(separator: ", ")) + worstKinds.joined()
    }

    /// p50 / p90 / p99 / max in milliseconds.
    private static func percentiles(_ histogram: Histogram<UInt64>) -> String {
        "\(ms(histogram, 50)) / \(ms(histogram, 90)) / \(ms(histogram, 99)) / \(ms(histogram, 100))"
    }

    private static func ms(_ histogram: Histogram<UInt64>, _ percentile: Double) -> String {
        String(format: "%.1f", Double(percentile >= 100 ? histogram.max : histogram.valueAtPercentile(percentile)) / 1000)
    }
}
