import CaretideSchemas
import Foundation
import Testing

@testable import DiagnosisService

/// A consultant's request for an ontology update: the versions read from the staged files' headers, whether the
/// staged release is an update of the loaded one, what the request reads as, and when an operator may approve it.
@Suite struct UpdateRequestRulesTests {
    static let at = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z
    static let loaded = OntologyReleaseReference(
        releaseID: 3, kind: .full, ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-01-16")
    static let sameAsLoaded = StagedRelease(ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-01-16")
    static let newer = StagedRelease(ontologyVersion: "hp/releases/2025-05-06", annotationVersion: "2025-05-06")

    static func row(status: String = "pending", imported: Int? = nil) -> UpdateRequestStore.Row {
        UpdateRequestStore.Row(
            requestID: UUID(uuidString: "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11")!, requestedBy: "consultant-1", requestedAt: at, status: status,
            decidedBy: status == "pending" ? nil : "operator-1", decidedAt: status == "pending" ? nil : at,
            updateID: imported == nil ? nil : "update-request-1", importedReleaseID: imported)
    }

    static func view(
        _ row: UpdateRequestStore.Row = UpdateRequestRulesTests.row(), loaded: OntologyReleaseReference? = UpdateRequestRulesTests.loaded,
        staged: StagedRelease?
    ) -> UpdateRequestRoutes.View {
        UpdateRequestRoutes.View(row, loaded: loaded, staged: staged)
    }

    @Test("a header's value is the first line with its prefix, trimmed; a blank one or none at all is no version")
    func headerValues() {
        let obo = Data("format-version: 1.2\ndata-version: hp/releases/2025-01-16 \r\nsaved-by: hpo\ndata-version: later\n".utf8)
        #expect(StagedRelease.headerValue(head: obo, prefix: "data-version:") == "hp/releases/2025-01-16")
        let hpoa = Data("#description: HPO annotations\n#version: 2025-01-16\nOMIM:154700\tMarfan syndrome\n".utf8)
        #expect(StagedRelease.headerValue(head: hpoa, prefix: "#version:") == "2025-01-16")
        #expect(StagedRelease.headerValue(head: Data("data-version:   \n".utf8), prefix: "data-version:") == nil)
        #expect(StagedRelease.headerValue(head: Data("format-version: 1.2\n".utf8), prefix: "data-version:") == nil)
        #expect(StagedRelease.headerValue(head: Data(), prefix: "data-version:") == nil)
        // Only a line that starts with the prefix counts: a comment mentioning it does not.
        #expect(StagedRelease.headerValue(head: Data("! data-version: x\n".utf8), prefix: "data-version:") == nil)
    }

    @Test("an update is available when a staged version differs from the loaded release's, or only a minimum release is loaded")
    func updateAvailable() {
        #expect(Self.view(staged: Self.newer).updateAvailable)
        #expect(!Self.view(staged: Self.sameAsLoaded).updateAvailable)
        #expect(!Self.view(staged: nil).updateAvailable)
        #expect(Self.view(staged: StagedRelease(ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-05-06")).updateAvailable)
        #expect(Self.view(loaded: nil, staged: Self.sameAsLoaded).updateAvailable)
        let minimum = OntologyReleaseReference(
            releaseID: 4, kind: .minimum, ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-01-16")
        #expect(Self.view(loaded: minimum, staged: Self.sameAsLoaded).updateAvailable)
    }

    @Test("a request reads imported once its import is in, else as stored; the releases it compares travel with it")
    func statusShown() {
        let imported = Self.view(Self.row(status: "approved", imported: 5), staged: Self.newer)
        #expect(imported.status == "imported" && imported.importedReleaseId == 5 && imported.updateId == "update-request-1")
        #expect(Self.view(Self.row(status: "approved"), staged: Self.newer).status == "approved")
        let pending = Self.view(staged: Self.newer)
        #expect(pending.status == "pending" && pending.decidedBy == nil && pending.requestedBy == "consultant-1")
        #expect(pending.loaded == Self.loaded && pending.newestKnown == Self.newer)
    }

    @Test("an operator approves only a pending request while a staged release differs from the loaded one")
    func approval() {
        #expect(UpdateRequestRoutes.approvalRefusal(status: "pending", Self.view(staged: Self.newer)) == nil)
        #expect(UpdateRequestRoutes.approvalRefusal(status: "refused", Self.view(staged: Self.newer)) == "the request is refused, not pending")
        #expect(UpdateRequestRoutes.approvalRefusal(status: "approved", Self.view(staged: Self.newer)) == "the request is approved, not pending")
        #expect(UpdateRequestRoutes.approvalRefusal(status: "pending", Self.view(staged: nil))?.hasPrefix("no release is staged") == true)
        #expect(
            UpdateRequestRoutes.approvalRefusal(status: "pending", Self.view(staged: Self.sameAsLoaded))
                == "the loaded release is the newest known (hp/releases/2025-01-16)")
        let unversioned = StagedRelease(ontologyVersion: nil, annotationVersion: nil)
        let loadedUnversioned = OntologyReleaseReference(releaseID: 3, kind: .full, ontologyVersion: nil, annotationVersion: nil)
        #expect(
            UpdateRequestRoutes.approvalRefusal(status: "pending", Self.view(loaded: loadedUnversioned, staged: unversioned))
                == "the loaded release is the newest known (unversioned)")
    }
}
