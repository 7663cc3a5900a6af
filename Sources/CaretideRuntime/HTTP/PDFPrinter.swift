public import Foundation
public import Hummingbird
import Synchronization

/// Prints a page (a patient's report, a ranking's export) to PDF with a headless Chromium from Debian's packages (`chromium`): the very page a browser
/// shows, laid out by the same engine, so the HTML and the PDF cannot say different things. Chosen over a PDF writer
/// of our own, which would lay the page out a second time (and over wkhtmltopdf, no longer in Debian).
///
/// The page is written to a private directory (mode 0700) that is removed after the print, whatever happens; the
/// browser loads it from that file with no network (the page's own policy allows no fetch, no script) and a profile
/// of its own. At most `concurrency` prints run at once on a replica, each stopped after `timeout`.
public struct PDFPrinter: Sendable {
    /// The browser's executable; nil when this replica has none (the PDF route then answers 503 and says why).
    public let browser: String?
    public let timeout: Duration
    /// Where each print's private directory is made.
    let workspace: URL
    /// How many prints may run at once: each is a browser, heavy beside a request.
    let slots: Slots

    public init(browser: String?, timeout: Duration = .seconds(30), concurrency: Int = 2) {
        self.init(browser: browser, timeout: timeout, concurrency: concurrency, workspace: FileManager.default.temporaryDirectory)
    }

    init(browser: String?, timeout: Duration, concurrency: Int, workspace: URL) {
        self.browser = browser
        self.timeout = timeout
        self.workspace = workspace
        self.slots = Slots(max(1, concurrency))
    }

    /// `REPORT_PDF_BROWSER`, or Debian's `/usr/bin/chromium` when it is installed; none otherwise.
    public static func configured(_ environment: [String: String]) throws(InvalidConfiguration) -> PDFPrinter {
        if let path = environment["REPORT_PDF_BROWSER"] {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw InvalidConfiguration(problems: ["REPORT_PDF_BROWSER is not an executable file: \(path)"])
            }
            return PDFPrinter(browser: path)
        }
        return PDFPrinter(browser: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") ? "/usr/bin/chromium" : nil)
    }

    public struct Unavailable: Error {}
    public struct Failed: Error, CustomStringConvertible {
        let reason: String
        public var description: String { "the PDF could not be printed: \(reason)" }
    }

    /// The page printed, as a route answers it (`DocumentResponse`, shown inline under `name`); a 503 naming what to
    /// install when this replica has no browser (the page itself, `htmlRoute`, still works).
    public func response(_ html: String, language: String?, name: String, htmlRoute: String) async throws -> Response {
        guard browser != nil else {
            throw HTTPProblem(
                status: .serviceUnavailable, error: "this replica cannot print PDF: install chromium or set REPORT_PDF_BROWSER; \(htmlRoute) works")
        }
        return DocumentResponse.make(
            ByteBuffer(bytes: try await print(html)), contentType: "application/pdf", language: language, disposition: .inline(name))
    }

    /// The PDF of `html`.
    func print(_ html: String) async throws -> Data {
        guard let browser else { throw Unavailable() }
        await slots.take()
        defer { Task { await slots.give() } }
        let directory = workspace.appendingPathComponent("caretide-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("report.html")
        let pdf = directory.appendingPathComponent("report.pdf")
        try Data(html.utf8).write(to: page)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        // --no-sandbox: containers rarely allow the namespaces Chromium's sandbox needs; the page it loads is ours,
        // escaped throughout, and may run nothing.
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-background-networking",
            "--user-data-dir=\(directory.appendingPathComponent("profile").path)", "--no-pdf-header-footer", "--print-to-pdf=\(pdf.path)",
            page.absoluteString,
        ]
        process.environment = ["HOME": directory.path, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status = try await Self.run(process, timeout: timeout)
        guard let status else { throw Failed(reason: "the browser took longer than \(timeout)") }
        guard status == 0, let data = FileManager.default.contents(atPath: pdf.path), data.starts(with: Array("%PDF".utf8)) else {
            throw Failed(reason: "the browser exited with status \(status) and no PDF")
        }
        return data
    }
}

extension PDFPrinter {
    /// Runs `process` and answers its exit status, or nil once `timeout` has passed, whatever the child does: the
    /// wait ends at the timeout even when Foundation's `run` itself has not returned yet (it is then killed as soon
    /// as it has a pid). SIGKILL, not SIGTERM: a service ignores SIGTERM for its own orderly stop, and a child
    /// inherits that. Never pid 0: that would signal the whole process group.
    static func run(_ process: Process, timeout: Duration) async throws -> Int32? {
        let outcome = Outcome()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32?, any Error>) in
            process.terminationHandler = { ended in outcome.settle { continuation.resume(returning: ended.terminationStatus) } }
            // Foundation's `run` waits for the child in blocking calls: off the cooperative pool, whose few threads
            // every request and consumer shares (two of them blocked there stalled a whole test run).
            DispatchQueue.global().async {
                do {
                    try process.run()
                } catch {
                    outcome.settle { continuation.resume(throwing: error) }
                    return
                }
                if outcome.isSettled, process.processIdentifier > 0, process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                outcome.settle { continuation.resume(returning: nil) }
                if process.processIdentifier > 0, process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
        }
    }

    /// Whichever of exit, failure to start and timeout comes first answers; the others find it settled.
    final class Outcome: Sendable {
        private let settled = Mutex(false)

        func settle(_ answer: () -> Void) {
            let first = settled.withLock { settled in
                defer { settled = true }
                return !settled
            }
            if first { answer() }
        }

        var isSettled: Bool { settled.withLock { $0 } }
    }
}
