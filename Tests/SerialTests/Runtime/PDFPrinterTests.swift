import Foundation
import Testing

@testable import CaretideRuntime

/// Where the PDF printer comes from, and what it does without a browser: the HTML report keeps working, the PDF
/// route says why it cannot print.
///
/// Runs alone (SerialTests): its tests start processes (browsers that fail, hang or cannot start), and beside the rest
/// they starved timed waits elsewhere.
@Suite struct PDFPrinterTests {
    @Test("REPORT_PDF_BROWSER must name an executable; a file that is not one stops the service with the variable named")
    func configured() throws {
        let plain = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-browser-\(UUID().uuidString)")
        try Data("text".utf8).write(to: plain)
        defer { try? FileManager.default.removeItem(at: plain) }
        #expect {
            try PDFPrinter.configured(["REPORT_PDF_BROWSER": plain.path])
        } throws: { error in
            (error as? InvalidConfiguration)?.problems == ["REPORT_PDF_BROWSER is not an executable file: \(plain.path)"]
        }
        #expect((try? PDFPrinter.configured(["REPORT_PDF_BROWSER": "/bin/sh"]))?.browser == "/bin/sh")
        // Unset: Debian's chromium when it is there, else none.
        let detected = try? PDFPrinter.configured([:])
        #expect(detected?.browser == (FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") ? "/usr/bin/chromium" : nil))
    }

    @Test("without a browser nothing is printed: the printer refuses before it writes a file")
    func unavailable() async {
        await #expect(throws: PDFPrinter.Unavailable.self) { try await PDFPrinter(browser: nil).print("<p>x</p>") }
    }

    @Test("a browser that writes no PDF is a failure with its exit status, and the private directory is gone after")
    func failingBrowser() async throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("pdf-printer-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let printer = PDFPrinter(browser: "/bin/false", timeout: .seconds(10), concurrency: 1, workspace: workspace)
        await #expect {
            try await printer.print("<p>x</p>")
        } throws: { error in
            (error as? PDFPrinter.Failed)?.description == "the PDF could not be printed: the browser exited with status 1 and no PDF"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path).isEmpty)
    }

    @Test("a browser that hangs is stopped at the timeout")
    func hangingBrowser() async throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("pdf-printer-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        // A script that sleeps, whatever it is given, stands in for a browser that never finishes.
        let script = workspace.appendingPathComponent("hang.sh")
        try Data("#!/bin/sh\nexec sleep 30\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let printer = PDFPrinter(browser: script.path, timeout: .milliseconds(300), concurrency: 1, workspace: workspace)
        await #expect {
            try await printer.print("<p>x</p>")
        } throws: { error in
            (error as? PDFPrinter.Failed)?.description.contains("took longer than") == true
        }
    }

    @Test("of exit, failure to start and timeout, the first answers and the others find it settled")
    func firstOutcomeWins() {
        let outcome = PDFPrinter.Outcome()
        var answers: [String] = []
        #expect(!outcome.isSettled)
        outcome.settle { answers.append("timeout") }
        outcome.settle { answers.append("exit") }
        outcome.settle { answers.append("failed to start") }
        #expect(answers == ["timeout"] && outcome.isSettled)
    }

    @Test("a program that cannot start is an error at once, not a wait for the timeout")
    func cannotStart() async {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/browser")
        await #expect(throws: (any Error).self) { try await PDFPrinter.run(process, timeout: .seconds(600)) }
    }
}
