import CaretideLocalStack
import CaretideTestSupport
import Foundation
import Testing

/// The committed benchmark commands run as committed, on the tests' small data, so a change that breaks one (a new
/// setting the service requires, as authentication once did) fails here rather than when someone next measures.
@Suite struct BenchCommandTests {
    @Test("caretide-bench phenotype imports, starts diagnosis-service with the development keys, and ranks")
    func phenotype() async throws {
        let fixtures = Paths.packageRoot.appendingPathComponent("Tests/PhenotypeRankingTests/Fixtures").path
        let run = try await Subprocess.run(
            Paths.executable("caretide-bench").path, ["phenotype", "--directory", fixtures, "--queries", "2", "--samples", "50"])
        #expect(run.status == 0, "\(run.output)")
        for line in ["diagnosis-service: serving the release", "after a second import: release 2 serving", "swift symmetric , p-values: 5 terms"] {
            #expect(run.output.contains(line), "\(line): \(run.output)")
        }
    }
}
