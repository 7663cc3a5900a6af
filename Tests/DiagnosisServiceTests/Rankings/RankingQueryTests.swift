import CaretideSchemas
import PhenotypeRanking
import Testing

@testable import DiagnosisService

/// A ranking asked over Kafka and over HTTP is the same query: what a request leaves out takes the documented default.
@Suite struct RankingQueryTests {
    @Test("a request naming only phenotypes ranks asymmetrically, 20 results, nothing excluded, no suggestions")
    func defaults() {
        let query = RankingQuery(DiagnosisRequested(requestID: "r-1", phenotypes: ["HP:0001250"]))
        #expect(query == RankingQuery(phenotypes: ["HP:0001250"], excluded: [], scoring: .asymmetric, maxResults: 20, suggestPhenotypes: false))
    }

    @Test("what a request gives is kept")
    func given() {
        let request = DiagnosisRequested(
            requestID: "r-2", phenotypes: ["HP:0001250", "HP:0002069"], excluded: ["HP:0000707"], scoring: .symmetric, maxResults: 5,
            suggestPhenotypes: true)
        let query = RankingQuery(request)
        #expect(query.phenotypes == request.phenotypes)
        #expect(query.excluded == ["HP:0000707"])
        #expect(query.scoring == .symmetric)
        #expect(query.maxResults == 5)
        #expect(query.suggestPhenotypes)
    }
}
