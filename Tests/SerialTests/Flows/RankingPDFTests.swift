import CaretideIdentity
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideTestSupport
import DiagnosisService
import Foundation
import Testing

/// A differential-diagnosis ranking printed to PDF by diagnosis-service (from DiagnosisFlowTests). Runs alone
/// (SerialTests): it starts headless Chromium, and beside the rest the browser's processes starved timed waits
/// elsewhere.
@Suite(.serialized, .stoppingStacks) struct RankingPDFTests {
    @Test("a ranking printed to PDF by the headless Chromium the patient reports use: the query, the release and the explained results")
    func rankingPDF() async throws {
        let stack = try await TestStack.start(
            [DiagnosisService.definition(importOptions: HPOFixture.importOptions, dataDirectory: nil, printer: try PDFPrinter.configured([:]))])
        let base = stack.baseURL(DiagnosisService.name)
        let report = try await HPOFixture.importRelease(stack)
        try await HPOFixture.waitUntilServing(stack, release: report.release.releaseID)
        let reply = try await HTTP.post(base + "/v1/rankings.pdf", json: #"{"phenotypes": ["HP:0001166", "HP:0001083"], "maxResults": 3}"#)
        #expect(reply.status == 200 && reply.header("Content-Type") == "application/pdf")
        #expect(reply.header("Content-Disposition") == "inline; filename=\"ranking.pdf\"" && reply.header("Cache-Control") == "no-store")
        #expect(reply.body.starts(with: Array("%PDF-".utf8)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-ranking-\(UUID().uuidString).pdf")
        defer { try? FileManager.default.removeItem(at: file) }
        try reply.body.write(to: file)
        let text = try await Subprocess.run("/usr/bin/pdftotext", ["-layout", file.path, "-"]).output
        #expect(text.contains("Marfan") && text.contains("Arachnodactyly") && text.contains("hp/releases/2025-01-16"))
        // The same refusals as the JSON ranking.
        #expect(try await HTTP.post(base + "/v1/rankings.pdf", json: #"{"phenotypes": []}"#).status == 400)
        #expect(
            try await HTTP.post(
                base + "/v1/rankings.pdf", json: #"{"phenotypes": ["HP:0001166"]}"#, as: .identity(Identity(subject: "p-1", role: .patient))
            ).status == 403)
    }
}
