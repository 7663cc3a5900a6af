import CaretideIdentity
import CaretideStore
import CaretideTestSupport
import Foundation
import NotificationService
import Testing

/// The content pack in the repository (`content/`), imported into a fresh stack as `caretide dev` imports it: every
/// page passes the publishing route's rules, every language has the same pages, every link between pages resolves,
/// every app has its help page, every page is served, and importing again duplicates nothing.
@Suite(.serialized, .stoppingStacks)
struct ContentPackTests {
    static let directory = Paths.packageRoot.appendingPathComponent("content")
    /// The help page of each app the seeds describe, and the guides the apps and rules point to.
    static let required = [
        "help.npi", "help.diagnosis", "help.exam-results", "help.melanoma", "help.health-records", "help.diet",
    ]

    @Test("the pack: the same pages in every language, every link resolves, every app's help, every source cited")
    func pack() throws {
        let pages = try ContentPack.read(directory: Self.directory)
        let languages = Set(pages.map(\.language))
        #expect(languages.count >= 2 && languages.contains("en"), "\(languages)")
        let ids = Set(pages.map(\.id))
        for language in languages {
            #expect(Set(pages.filter { $0.language == language }.map(\.id)) == ids, "\(language) lacks or adds pages")
        }
        for id in Self.required { #expect(ids.contains(id), "no page \(id)") }
        for page in pages {
            #expect(!page.sources.isEmpty, "\(page.file) cites no source")
            for link in page.markdown.matches(of: /\]\(\/v1\/articles\/([A-Za-z0-9._-]+)\)/) {
                #expect(ids.contains(String(link.1)), "\(page.file) links to \(link.1), which is no page")
            }
            // Every external link is https.
            for link in page.markdown.matches(of: /\]\((https?:[^)]*)\)/) { #expect(link.1.hasPrefix("https://"), "\(page.file): \(link.1)") }
        }
    }

    @Test("a page file without a source, or whose id is not its name, is refused naming the file")
    func refusals() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID())/en")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let front = "---\nid: help.x\ntopic: help.x\ntitle: Help\nreviewer: Editors\nreviewedOn: 2026-11-01\n"
        try Data((front + "---\nText.\n").utf8).write(to: folder.appendingPathComponent("help.x.md"))
        #expect(throws: ContentPack.Problem.self) { try ContentPack.read(directory: folder.deletingLastPathComponent()) }
        try Data((front + "sources:\n  - WHO, https://www.who.int\n---\nText.\n").utf8).write(to: folder.appendingPathComponent("help.x.md"))
        #expect(try ContentPack.read(directory: folder.deletingLastPathComponent()).map(\.id) == ["help.x"])
        try FileManager.default.moveItem(at: folder.appendingPathComponent("help.x.md"), to: folder.appendingPathComponent("help.y.md"))
        #expect(throws: ContentPack.Problem.self) { try ContentPack.read(directory: folder.deletingLastPathComponent()) }
    }

    @Test("imported into a fresh stack: every page served in its languages with its sources; importing again publishes nothing")
    func imported() async throws {
        let stack = try await TestStack.start([NotificationService.definition])
        let notification = stack.baseURL(NotificationService.name)
        let pages = try ContentPack.read(directory: Self.directory)
        let directory = Self.directory
        let first = try await stack.withDatabase(schema: "notification") { database, logger in
            try await ContentPack.importPack(directory: directory, database: database, logger: logger)
        }
        #expect(first.pages == pages.count && first.published == pages.count)
        let reader = Caller.identity(Identity(subject: "p-reader", role: .patient))
        for page in pages {
            let reply = try await HTTP.get("\(notification)/v1/articles/\(page.id)?language=\(page.language)", as: reader)
            let article = try #require(try reply.json() as? [String: Any], "\(page.file): \(reply.status)")
            #expect(reply.status == 200 && article["title"] as? String == page.title && article["topic"] as? String == page.topic, "\(page.file)")
            let html = article["html"] as? String ?? ""
            #expect(html.contains("<h2>") && !html.contains("<script"), "\(page.file)")
        }
        #expect(try await HTTP.get("\(notification)/v1/articles?topic=help", as: reader).items().count == Self.required.count)
        // A released report's item links to its institution's explanation of the test; until the institution writes one,
        // the pack's page on the test (by its LOINC code) answers.
        let explanation = try await HTTP.get("\(notification)/v1/institutions/st-mary/exam-tests/2276-4/explanation", as: reader)
        let explained = try explanation.json() as? [String: Any]
        #expect(explanation.status == 200 && explained?["articleId"] as? String == "lab.2276-4")
        #expect(try await HTTP.get("\(notification)/v1/institutions/st-mary/exam-tests/0000-0/explanation", as: reader).status == 404)
        if pages.contains(where: { $0.kind == "tip" }) {
            #expect(try await HTTP.get("\(notification)/v1/tips/today", as: reader).status == 200)
        }
        let again = try await stack.withDatabase(schema: "notification") { database, logger in
            try await ContentPack.importPack(directory: directory, database: database, logger: logger)
        }
        #expect(again.published == 0 && again.unchanged == pages.count)
        try await stack.shutdown()
    }
}
