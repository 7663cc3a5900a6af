import ArgumentParser
import CaretideDomain
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import Foundation

/// What one event costs the services in JSON alone, one core: ingest encodes a reading's event, scoring reads it back
/// (parse, the envelope's and the payload's schema, typed decoding) and encodes its assessment, notification reads
/// that. Every reading of the single POST pays each of these once, so a cut here shows in `scripts/bench/ingest-post`
/// too, where the machine's noise hides it (BENCHMARKS.md, "JSON per event"). `--only` narrows it for `perf record`.
struct CodecBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec", abstract: "Microseconds per event to encode and to read back (parse, validate, decode) an event, one core.")

    @Option(help: "Operations timed per round.") var count = 5_000
    @Option(help: "Rounds; the fastest and the median are reported.") var rounds = 15
    @Option(help: "Only the operations whose name contains this (for a profiler).") var only: String?

    func run() async throws {
        let codec = EventCodec()
        let reading = EventEnvelope(
            producer: "ingest-service", patientID: "patient-0042", traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
            payload: BloodPressureRecorded(
                measurementID: UUID(), systolic: 128, diastolic: 79, takenAt: Date(timeIntervalSince1970: 1_795_000_000), source: .patient))
        let assessment = EventEnvelope(
            producer: "scoring-service", patientID: "patient-0042", traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
            payload: AssessmentRecorded(
                assessmentID: UUID(), sourceEventID: reading.eventID, subjectID: reading.payload.measurementID.uuidString.lowercased(),
                category: .bloodPressure(.elevated), severity: .normal, tip: "bloodPressure.elevated", ruleSetVersion: "2026.11.1",
                observedAt: reading.payload.takenAt, supersedes: nil, values: ["systolic": 128, "diastolic": 79]))
        let readingBytes = try codec.encode(reading)
        let assessmentBytes = try codec.encode(assessment)
        // Both must read back, or the figures would time a rejection.
        _ = try codec.decode(readingBytes)
        _ = try codec.decode(assessmentBytes)

        let measured: [(String, () throws -> Void)] = [
            ("encode blood-pressure.recorded (ingest)", { _ = try codec.encode(reading) }),
            ("read blood-pressure.recorded (scoring)", { _ = try codec.decode(readingBytes) }),
            ("  of which parse", { _ = try CaretideJSON.parse(readingBytes) }),
            ("encode assessment.recorded (scoring)", { _ = try codec.encode(assessment) }),
            ("read assessment.recorded (notification)", { _ = try codec.decode(assessmentBytes) }),
            ("  of which parse", { _ = try CaretideJSON.parse(assessmentBytes) }),
        ]
        Console.write(
            "\(readingBytes.count) and \(assessmentBytes.count) bytes; per operation, the fastest and the median of \(rounds) rounds of \(count):\n")
        let clock = ContinuousClock()
        for (name, operation) in measured where only.map({ name.contains($0) }) ?? true {
            for _ in 0..<min(count, 1_000) { try operation() }
            var perOperation: [Double] = []
            for _ in 0..<rounds {
                let start = clock.now
                for _ in 0..<count { try operation() }
                perOperation.append((clock.now - start).seconds * 1e6 / Double(count))
            }
            // The fastest round is the one the machine disturbed least: steadier on a shared machine than the median.
            let sorted = perOperation.sorted()
            Console.write(
                "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%7.2f", sorted[0])) µs  (median \(String(format: "%.2f", sorted[sorted.count / 2])))\n"
            )
        }
    }
}
