import CaretideLocalStack
public import Foundation

/// Debian's headless Chromium, for tests that look at a page as a browser does: a screenshot, the DOM it built, the
/// console lines it logged, and the page printed to PDF. A missing browser fails the test rather than skipping it
/// (`scripts/install-dependencies` installs it).
public enum Chromium {
    public struct Rendering: Sendable {
        /// The console messages Chromium logged while loading the page (CSP violations among them).
        public let consoleLines: [String]
        public let dom: String
        public let screenshot: URL
        public let pdf: URL
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed: run scripts/install-dependencies" }
    }

    public static var executable: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Opens `html` from a file (no network, no token) and keeps what the browser made of it under `directory`.
    public static func render(_ html: String, name: String, in directory: URL) async throws -> Rendering {
        guard let chromium = executable else { throw Missing() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent("\(name).html")
        try Data(html.utf8).write(to: page)
        let screenshot = directory.appendingPathComponent("\(name).png")
        let pdf = directory.appendingPathComponent("\(name).pdf")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        // Root in a container needs --no-sandbox; a profile of its own keeps runs apart.
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)", "--enable-logging=stderr", "--v=0",
        ]
        let shot = try await Subprocess.run(chromium, common + ["--window-size=900,2400", "--screenshot=\(screenshot.path)", page.absoluteString])
        let dom = try await Subprocess.run(chromium, common + ["--dump-dom", page.absoluteString])
        _ = try await Subprocess.run(chromium, common + ["--no-pdf-header-footer", "--print-to-pdf=\(pdf.path)", page.absoluteString])
        let console = (shot.output + "\n" + dom.output).split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") }
        return Rendering(consoleLines: console, dom: dom.output, screenshot: screenshot, pdf: pdf)
    }
}
