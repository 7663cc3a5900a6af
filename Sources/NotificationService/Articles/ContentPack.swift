import CaretideDomain
import CaretideRuntime
import CaretideSchemas
public import CaretideStore
public import Foundation
public import Logging

/// The content pack in the repository (`content/<language>/<id>.md`): information pages, help and tips of the day in
/// Markdown, each with a small front-matter block (id, topic, kind, title, sources, reviewer, reviewedOn). Imported
/// by `caretide articles import` and by `caretide dev` at start; importing again publishes a new version only of a page
/// that changed, so nothing is duplicated. Each page is held to the publishing route's own rules (its request schema,
/// its dates, the Markdown renderer's limits), and its sources are listed at its end.
public enum ContentPack {
    public struct Page: Sendable, Equatable {
        public let id: String
        public let language: String
        public let topic: String
        public let kind: String
        public let title: String
        public let sources: [String]
        public let reviewer: String
        public let reviewedOn: String
        public let markdown: String
        /// The file it was read from, for messages.
        public let file: String

        /// The Markdown published: the page, then its sources.
        var published: String {
            let heading = ContentPack.sourcesHeading[language] ?? "Sources"
            return markdown.trimmingCharacters(in: .whitespacesAndNewlines) + "\n\n## \(heading)\n\n"
                + sources.map { "- \($0)" }.joined(separator: "\n") + "\n"
        }
    }

    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let file: String
        public let message: String
        public var description: String { "\(file): \(message)" }
    }

    static let sourcesHeading = ["en": "Sources", "pt": "Fontes"]
    /// A page file larger than this is refused before it is read.
    static let maximumFileBytes = 120_000

    /// Every page under `directory` (`<language>/<id>.md`), checked; the first problem found stops the read, naming the file.
    public static func read(directory: URL) throws -> [Page] {
        let manager = FileManager.default
        var pages: [Page] = []
        let languages = try manager.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        for language in languages {
            let folder = directory.appendingPathComponent(language)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            guard language.wholeMatch(of: /[a-z]{2,3}(-[A-Za-z0-9]{2,8})*/) != nil else {
                throw Problem(file: folder.path, message: "a language folder must be a BCP 47 tag (en, pt)")
            }
            for name in try manager.contentsOfDirectory(atPath: folder.path).filter({ $0.hasSuffix(".md") }).sorted() {
                let file = folder.appendingPathComponent(name)
                let attributes = try manager.attributesOfItem(atPath: file.path)
                guard (attributes[.size] as? Int ?? 0) <= maximumFileBytes else {
                    throw Problem(file: file.path, message: "is larger than \(maximumFileBytes) bytes")
                }
                pages.append(try page(String(decoding: try Data(contentsOf: file), as: UTF8.self), language: language, file: file.path))
            }
        }
        return pages
    }

    /// One page file: its front matter, then its Markdown.
    static func page(_ text: String, language: String, file: String) throws -> Page {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
            throw Problem(file: file, message: "must begin with a front-matter block between two lines of ---")
        }
        var fields: [String: String] = [:]
        var sources: [String] = []
        var inSources = false
        for line in lines[1..<end] where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            if inSources, let item = line.wholeMatch(of: /\s+-\s+(.+)/) {
                sources.append(String(item.1).trimmingCharacters(in: .whitespaces))
                continue
            }
            guard let match = line.wholeMatch(of: /([A-Za-z]+):\s*(.*)/) else {
                throw Problem(file: file, message: "front matter line \"\(line.prefix(60))\" is not key: value")
            }
            let (key, value) = (String(match.1), String(match.2).trimmingCharacters(in: .whitespaces))
            inSources = key == "sources"
            guard !inSources else { continue }
            guard fields[key] == nil else { throw Problem(file: file, message: "\(key) is given twice") }
            fields[key] = value
        }
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        func field(_ key: String) throws -> String {
            guard let value = fields[key], !value.isEmpty else { throw Problem(file: file, message: "the front matter lacks \(key)") }
            return value
        }
        let id = try field("id")
        guard id == name, id.wholeMatch(of: /[A-Za-z0-9._-]{1,64}/) != nil else {
            throw Problem(file: file, message: "id must be the file's name, of 1 to 64 of A-Z a-z 0-9 . _ -")
        }
        guard !sources.isEmpty else { throw Problem(file: file, message: "cites no source") }
        let page = Page(
            id: id, language: language, topic: try field("topic"), kind: fields["kind"] ?? "article", title: try field("title"), sources: sources,
            reviewer: try field("reviewer"), reviewedOn: try field("reviewedOn"),
            markdown: lines[(end + 1)...].joined(separator: "\n"), file: file)
        _ = try draft(page)
        return page
    }

    /// The page as the publishing route would take it, or the route's own refusal, naming the file.
    static func draft(_ page: Page, today: LocalDate = LocalDate(Date(), in: TimeZone(identifier: "UTC")!).addingDays(1)) throws
        -> ArticleStore.Draft
    {
        let document: JSONValue = .object([
            "topic": .string(page.topic), "kind": .string(page.kind), "title": .string(page.title), "markdown": .string(page.published),
            "reviewer": .string(page.reviewer), "reviewedOn": .string(page.reviewedOn),
        ])
        let violations = SchemaCatalog.bundled.validateRequest(.article, document)
        guard violations.isEmpty else {
            throw Problem(file: page.file, message: violations.map { "\($0.pointer) \($0.message)" }.joined(separator: "; "))
        }
        let body = ArticleRoutes.Body(
            topic: page.topic, kind: page.kind, title: page.title, markdown: page.published, reviewer: page.reviewer, reviewedOn: page.reviewedOn,
            nextReviewOn: nil)
        do {
            return try ArticleRoutes.draft(body, today: today)
        } catch let problem as HTTPProblem {
            throw Problem(
                file: page.file, message: ([problem.error] + problem.violations.map { "\($0.pointer) \($0.message)" }).joined(separator: "; "))
        }
    }

    public struct ImportReport: Encodable, Sendable {
        public let pages: Int
        /// Pages published as a new version (new pages, and pages that changed).
        public let published: Int
        public let unchanged: Int
        public let languages: [String]
    }

    /// Publishes every page of the pack that is new or changed, as `content-pack`, in one transaction.
    public static func importPack(directory: URL, database: Database, logger: Logger) async throws -> ImportReport {
        let pages = try read(directory: directory)
        let drafts = try pages.map { ($0, try draft($0)) }
        let published = try await database.transaction { connection in
            let store = ArticleStore(connection: connection, logger: logger)
            var published = 0
            for (page, draft) in drafts {
                if case .created = try await store.publish(draft, articleID: page.id, language: page.language, by: "content-pack") { published += 1 }
            }
            return published
        }
        return ImportReport(
            pages: pages.count, published: published, unchanged: pages.count - published, languages: Array(Set(pages.map(\.language))).sorted())
    }
}
