import CaretideArticles
import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// Information pages (`ArticleStore`), Markdown in and sanitised HTML and plain text out (`ArticleMarkup`):
/// - `PUT /v1/articles/{articleId}/{language}`: operators (and `broadcasts:write` clients) publish an article's next
///   version in a language, with its reviewer and review date
/// - `PUT /v1/institutions/{institutionId}/articles/{slug}/{language}`: an institution publishes its own, as
///   `{institutionId}:{slug}`; its explanation of an exam test is topic `examTest.{code}` under slug `exam-test.{code}`
/// - `GET /v1/articles[?q=&topic=&kind=&limit=]`: search by word across titles and text, in the caller's language
/// - `GET /v1/articles/{articleId}[?language=&version=]`: one article, in the language asked for (`?language=`, else
///   `Accept-Language`, else English, else any), with `Content-Language`, `ETag` and cache headers
/// - `GET /v1/articles/{articleId}/versions?language=`: its versions, newest first
/// - `GET /v1/institutions/{institutionId}/exam-tests/{code}/explanation`: the institution's explanation of a test, else
///   the content pack's (`lab.{code}`)
/// - `GET /v1/tips/today`: the caller's tip of the day, not repeated within a week
/// Reading is open to every authenticated caller: the pages name nobody.
struct ArticleRoutes: Sendable {
    let context: ServiceContext

    struct Published: Encodable, Sendable {
        let articleId: String
        let language: String
        let version: Int
        /// created (a new version) or unchanged.
        let status: String
    }

    /// How long a reader may keep a page before asking again (with `If-None-Match`).
    static let cacheControl = "public, max-age=300"

    func register(on routes: APIRoutes) {
        routes.put(
            "v1/articles/:articleId/:language", access: .broadcasts,
            summary: "Publish an information page's next version in a language (Markdown; served sanitised)", body: [Body.schema]
        ) { request, requestContext in
            let articleID = try Self.pathID(requestContext, "articleId")
            return try await publish(request, requestContext, articleID: articleID, by: requestContext.identity?.subject ?? "operator")
        }
        routes.put(
            "v1/institutions/:institutionId/articles/:slug/:language", access: .institutionResults,
            summary: "Publish one of the institution's information pages (an exam test's explanation: slug exam-test.{code}, topic examTest.{code})",
            body: [Body.schema]
        ) { request, requestContext in
            let institution = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            let slug = try Self.pathID(requestContext, "slug")
            return try await publish(request, requestContext, articleID: "\(institution):\(slug)", by: institution)
        }
        routes.get(
            "v1/articles", access: .referenceData,
            summary: "Information pages by word, topic or kind, one per article in the caller's language (Accept-Language), best matches first",
            query: [
                QueryParameter("q", "words to find in titles and text"),
                QueryParameter("topic", "a topic or its start (melanoma lists melanoma.selfExamination …)"),
                QueryParameter("kind", "article or tip"),
                QueryParameter("limit", "how many (1 to 100, default 20)"),
            ]
        ) { request, requestContext in
            let parameters = request.uri.queryParameters
            var violations: [SchemaViolation] = []
            let limit = parameters.get("limit").map { Int($0) ?? 0 } ?? 20
            if !(1...100).contains(limit) { violations.append(.init(pointer: JSONPointer(tokens: ["limit"]), message: "must be from 1 to 100")) }
            let kind = parameters.get("kind")
            if let kind, !["article", "tip"].contains(kind) {
                violations.append(.init(pointer: JSONPointer(tokens: ["kind"]), message: "must be article or tip"))
            }
            let words = parameters.get("q").map { String($0.prefix(200)) }.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
            guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
            let found = try await ArticleStore(context).search(
                words: words, topic: parameters.get("topic").map { String($0.prefix(100)) }, kind: kind,
                languages: Self.languages(request), limit: limit)
            var response = try jsonResponse(["items": found])
            response.headers[.vary] = "Accept-Language"
            return response
        }
        routes.get(
            "v1/articles/:articleId", access: .referenceData,
            summary: "An information page in the caller's language, as sanitised HTML and plain text, with Content-Language and ETag",
            query: [
                QueryParameter("language", "the language wanted (else Accept-Language, else English, else any)"),
                QueryParameter("version", "an earlier version (default the current one)"),
            ]
        ) { request, requestContext in
            try await read(try Self.pathID(requestContext, "articleId"), request: request)
        }
        routes.get(
            "v1/articles/:articleId/versions", access: .referenceData, summary: "An information page's versions in a language, newest first",
            query: [QueryParameter("language", "the language (else Accept-Language, else English, else any)")]
        ) { request, requestContext in
            let articleID = try Self.pathID(requestContext, "articleId")
            guard let language = try await language(of: articleID, request: request) else {
                throw HTTPProblem(status: .notFound, error: "no such article")
            }
            return try jsonResponse(
                ["items": try await ArticleStore(context).versions(articleID, language: language)])
        }
        routes.get(
            "v1/institutions/:institutionId/exam-tests/:code/explanation", access: .referenceData,
            summary:
                "The institution's explanation of one of its exam tests, by the test's code; until it publishes one, Caretide's own page on the test (lab.{code}); 404 without either"
        ) { request, requestContext in
            let institution = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            let code = try PatientID.fromPath(requestContext, parameter: "code", label: "test code")
            // The institution knows its own method and ranges best; the content pack's page serves meanwhile, and its
            // articleId says whose words the reader sees.
            let own = "\(institution):exam-test.\(code)"
            let chosen = try await ArticleStore(context).languages(of: own).isEmpty ? "lab.\(code)" : own
            return try await read(chosen, request: request)
        }
        routes.get("v1/tips/today", access: .ownInbox, summary: "The caller's tip of the day in their language, not repeated within a week") {
            request, requestContext in
            let recipient = try InboxRoutes.recipient(requestContext)
            let languages = Self.languages(request)
            let zone = try await PreferenceStore(context).preferences(of: recipient)?.timeZone
            let day = LocalDate(Date(), in: zone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!)
            let chosen = try await context.transaction { handler in
                try await ArticleStore(handler).tipOfTheDay(for: recipient, on: day, languages: languages)
            }
            guard let (articleID, language) = chosen,
                let tip = try await ArticleStore(context).article(articleID, language: language)
            else { throw HTTPProblem(status: .notFound, error: "no tip is published") }
            var response = try jsonResponse(tip)
            response.headers[.contentLanguage] = tip.language
            response.headers[.cacheControl] = "private, no-cache"
            return response
        }
    }

    private func publish(_ request: Request, _ requestContext: CaretideRequestContext, articleID: String, by publisher: String) async throws
        -> Response
    {
        let language = try Self.language(requestContext)
        let body = try await request.decode(as: Body.self, context: requestContext)
        let draft = try Self.draft(body, today: LocalDate(Date(), in: TimeZone(identifier: "UTC")!).addingDays(1))
        let published = try await context.transaction(auditing: requestContext.origin, status: { $0 == .created(version: 1) ? 201 : 200 }) {
            handler in
            try await ArticleStore(handler).publish(draft, articleID: articleID, language: language, by: publisher)
        }
        switch published {
        case .created(let version):
            return try jsonResponse(
                Published(articleId: articleID, language: language, version: version, status: "created"), status: version == 1 ? .created : .ok)
        case .unchanged(let version):
            return try jsonResponse(Published(articleId: articleID, language: language, version: version, status: "unchanged"))
        }
    }

    private func read(_ articleID: String, request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        let version = try parameters.get("version").map { text in
            guard let number = Int(text), number > 0 else {
                throw HTTPProblem(
                    status: .badRequest, error: "the query is invalid",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["version"]), message: "must be a whole number from 1")])
            }
            return number
        }
        guard let language = try await language(of: articleID, request: request),
            let article = try await ArticleStore(context).article(
                articleID, language: language, version: version)
        else { throw HTTPProblem(status: .notFound, error: "no such article") }
        let etag = "\"\(article.language).\(article.version)\""
        var response =
            request.headers[.ifNoneMatch].map({ $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag } }) == true
            ? Response(status: .notModified) : try jsonResponse(article)
        response.headers[.contentLanguage] = article.language
        response.headers[.eTag] = etag
        response.headers[.cacheControl] = Self.cacheControl
        response.headers[.vary] = "Accept-Language"
        return response
    }

    /// The language to answer in: `?language=` if the article has it, else the first of `Accept-Language` it has
    /// (a primary tag matching a regional one), else English, else the first it has; nil when it has none.
    private func language(of articleID: String, request: Request) async throws -> String? {
        let available = try await ArticleStore(context).languages(of: articleID)
        return Self.language(among: available, asked: request.uri.queryParameters.get("language"), preferred: Self.languages(request))
    }

    /// `language(of:request:)` apart from the database and the request, so the choice can be checked alone: among the
    /// languages the article has, the one `asked` for (nil when it lacks it), else the first of `preferred` (lowercase)
    /// it has, exactly or by primary tag (de-ch finds de, pt finds pt-BR), else English, else the first.
    static func language(among available: [String], asked: String?, preferred: [String]) -> String? {
        if let asked { return available.contains(asked) ? asked : nil }
        for wanted in preferred {
            if let exact = available.first(where: { $0.lowercased() == wanted }) { return exact }
            let primary = wanted.split(separator: "-").first.map(String.init) ?? wanted
            if let near = available.first(where: { $0.lowercased() == primary || $0.lowercased().hasPrefix(primary + "-") }) { return near }
        }
        return available.first { $0 == "en" } ?? available.first
    }

    /// The caller's languages, most preferred first, then English.
    static func languages(_ request: Request) -> [String] {
        AcceptLanguage.ranges(request.headers[.acceptLanguage]).filter { $0 != "*" } + ["en"]
    }

    /// An article id or slug from the path: letters, digits and . _ : - (an institution's start with its id and a colon).
    static func pathID(_ context: CaretideRequestContext, _ name: String) throws -> String {
        try PatientID.fromPath(context, parameter: name, label: name == "slug" ? "slug" : "article id")
    }

    /// The `{language}` of a publishing path: a BCP 47 tag (en, de-CH).
    static func language(_ context: CaretideRequestContext) throws -> String {
        guard let text = context.parameters.get("language"), text.utf8.count <= 35,
            text.wholeMatch(of: /[a-z]{2,3}(-[A-Za-z0-9]{2,8})*/) != nil
        else {
            throw HTTPProblem.invalidPathParameter("language", label: "language", requirement: "must be a BCP 47 language tag, e.g. en or de-CH")
        }
        return text
    }

    /// An article's next version as sent; its dates are read in `draft`, which names each one it refuses.
    struct Body: SchemaBody {
        static let schema: RequestSchema = .article
        let topic: String
        let kind: String?
        let title: String
        let markdown: String
        let reviewer: String
        let reviewedOn: String
        let nextReviewOn: String?
    }

    /// A request body as a draft, with the checks its schema cannot make: real dates, the review not in the future,
    /// the next review after it.
    static func draft(_ body: Body, today: LocalDate) throws -> ArticleStore.Draft {
        var violations: [SchemaViolation] = []
        let reviewed = LocalDate(body.reviewedOn)
        if reviewed == nil || reviewed! > today {
            violations.append(.init(pointer: JSONPointer(tokens: ["reviewedOn"]), message: "must be a real date (YYYY-MM-DD), not in the future"))
        }
        var next: LocalDate?
        if let text = body.nextReviewOn {
            next = LocalDate(text)
            if next == nil || reviewed.map({ next! <= $0 }) == true {
                violations.append(.init(pointer: JSONPointer(tokens: ["nextReviewOn"]), message: "must be a real date (YYYY-MM-DD) after reviewedOn"))
            }
        }
        var rendered: ArticleMarkup.Rendered?
        do {
            rendered = try ArticleMarkup.render(body.markdown)
        } catch {
            violations.append(.init(pointer: JSONPointer(tokens: ["markdown"]), message: error.description))
        }
        guard violations.isEmpty, let reviewed, let rendered else {
            throw HTTPProblem(status: .unprocessableContent, error: "the article is invalid", violations: violations)
        }
        return ArticleStore.Draft(
            topic: body.topic, kind: body.kind ?? "article", title: body.title, markdown: body.markdown, html: rendered.html,
            text: rendered.text, reviewer: body.reviewer,
            reviewedOn: reviewed, nextReviewOn: next)
    }
}
