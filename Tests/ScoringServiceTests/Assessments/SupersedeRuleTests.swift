import PropertyBased
import Testing

@testable import ScoringService

/// One standing assessment per subject (`AssessmentStore.replaces`): the rule the batch handler and a rescore share.
@Suite struct SupersedeRuleTests {
    @Test("the first assessment of a subject stands; a newer revision replaces it; an older one, late, never does")
    func revisions() {
        #expect(AssessmentStore.replaces(standing: nil, with: 1))
        #expect(AssessmentStore.replaces(standing: 1, with: 2))
        #expect(!AssessmentStore.replaces(standing: 3, with: 2))
    }

    @Test("the same revision again replaces only when a rescore says so: a redelivered event changes nothing")
    func sameRevision() {
        #expect(!AssessmentStore.replaces(standing: 2, with: 2))
        #expect(AssessmentStore.replaces(standing: 2, with: 2, replacingSameRevision: true))
        #expect(!AssessmentStore.replaces(standing: 3, with: 2, replacingSameRevision: true))
    }

    @Test("whatever order revisions arrive in, the one left standing is the newest")
    func newestStands() async {
        await propertyCheck(input: Gen.int(in: 1...20).array(of: 1...12)) { revisions in
            var standing: Int?
            for revision in revisions where AssessmentStore.replaces(standing: standing, with: revision) { standing = revision }
            #expect(standing == revisions.max())
        }
    }
}
