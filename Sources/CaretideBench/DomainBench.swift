import ArgumentParser
import CaretideDomain
import CaretideLocalStack
import CaretideRuntime
import Foundation
import PhenotypeRanking

/// Pure clinical-rule throughput on one core: a mix of blood pressure, pulse, BMI, glucose, HbA1c and NPI
/// assessments over inputs prepared in advance, so only the rules are timed.
struct DomainBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "domain", abstract: "Assessments per second of the pure clinical rules, one core.")

    @Option(help: "Seconds per round.") var seconds = 3.0
    @Option(help: "Rounds; the report gives each and the median.") var rounds = 3

    func run() async throws {
        // Seeded, so every run times the same inputs.
        var generator = SplitMix64(seed: 42)
        let count = 4096
        let pressures = (0..<count).map { _ in (Int(generator.next() % 150) + 80, Int(generator.next() % 70) + 40) }
        let pulses = (0..<count).map { _ in Int(generator.next() % 150) + 35 }
        let bodies = (0..<count).map { _ in (Double(generator.next() % 1200) / 10 + 40, Double(generator.next() % 700) / 10 + 140) }
        let glucose = (0..<count).map { _ in Double(generator.next() % 3000) / 10 + 40 }
        let hba1c = (0..<count).map { _ in Double(generator.next() % 100) / 10 + 4 }
        let diagnosed = Date(timeIntervalSince1970: 1_780_000_000)
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let npis = (0..<count).map { _ in
            NottinghamPrognosticIndexInput(
                tumourSizeCm: Double(generator.next() % 80) / 10 + 0.1, histologicalGrade: Int(generator.next() % 3) + 1,
                lymphNodes: .positiveNodeCount(Int(generator.next() % 8)), diagnosisDate: diagnosed)
        }

        var results: [Double] = []
        for round in 1...rounds {
            var assessed = 0
            var checksum = 0
            let clock = ContinuousClock()
            let start = clock.now
            let deadline = start + .milliseconds(Int(seconds * 1000))
            while clock.now < deadline {
                for index in 0..<count {
                    // Six rules per step; only successful assessments count (implausible inputs are refused and not
                    // counted); a checksum keeps the optimiser from dropping the work.
                    if let result = try? BloodPressure.assess(systolic: pressures[index].0, diastolic: pressures[index].1) {
                        checksum &+= result.severity.hashValue
                        assessed += 1
                    }
                    if let result = try? Pulse.assess(restingBeatsPerMinute: pulses[index]) {
                        checksum &+= result.severity.hashValue
                        assessed += 1
                    }
                    if let result = try? BodyMassIndex.assess(weightKg: bodies[index].0, heightCm: bodies[index].1) {
                        checksum &+= result.bodyMassIndexHundredths
                        assessed += 1
                    }
                    if let result = try? Glucose.assess(value: glucose[index], unit: .mgPerDL, context: .fasting) {
                        checksum &+= result.severity.hashValue
                        assessed += 1
                    }
                    if let result = try? Glucose.assessHbA1c(percent: hba1c[index]) {
                        checksum &+= result.severity.hashValue
                        assessed += 1
                    }
                    if let result = try? NottinghamPrognosticIndex.assess(npis[index], now: now) {
                        checksum &+= result.npiHundredths
                        assessed += 1
                    }
                }
            }
            let elapsed = clock.now - start
            let perSecond = Double(assessed) / elapsed.seconds
            results.append(perSecond)
            Console.write("round \(round): \(Int(perSecond)) assessments/s (checksum \(checksum & 0xff))\n")
        }
        let median = results.sorted()[results.count / 2]
        Console.write("median: \(Int(median)) assessments/s on one core\n")
    }
}
