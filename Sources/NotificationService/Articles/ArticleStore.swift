import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of information pages: every version of an article in each language, the newest being the one served.
struct ArticleStore: ServiceStore {
    let session: StoreSession

    /// A version as written (Markdown) and as served (sanitised HTML, plain text).
    struct Draft: Sendable {
        let topic: String
        let kind: String
        let title: String
        let markdown: String
        let html: String
        let text: String
        let reviewer: String
        let reviewedOn: LocalDate
        let nextReviewOn: LocalDate?
    }

    /// An article version as answered.
    struct Article: Encodable, Sendable {
        let articleId: String
        let language: String
        let version: Int
        let topic: String
        let kind: String
        let title: String
        let html: String
        let text: String
        let reviewer: String
        let reviewedOn: String
        let nextReviewOn: String?
        let publishedAt: Date
    }

    /// A line of a list or a search: enough to choose what to open.
    struct Summary: Encodable, Sendable {
        let articleId: String
        let language: String
        let version: Int
        let topic: String
        let kind: String
        let title: String
        /// The beginning of the text.
        let excerpt: String
        let reviewedOn: String
    }

    enum Published: Sendable, Equatable {
        case created(version: Int)
        /// The same as the current version: nothing new.
        case unchanged(version: Int)
    }

    /// Publishes the draft as the next version of the article in `language`, unless it is the current one.
    func publish(_ draft: Draft, articleID: String, language: String, by publisher: String) async throws -> Published {
        // One publisher at a time per article and language: the next version number is read, then taken.
        _ = try await session.query(
            "SELECT pg_advisory_xact_lock(hashtextextended('article:' || \(articleID) || ':' || \(language), 0))")
        let current = try await session.fetchAll(
            """
            SELECT version, topic, kind, title, markdown, reviewer, reviewed_on::text, next_review_on::text FROM articles
            WHERE article_id = \(articleID) AND language = \(language) ORDER BY version DESC LIMIT 1
            """, as: (Int, String, String, String, String, String, String, String?).self
        ).first
        if let current,
            [current.1, current.2, current.3, current.4, current.5, current.6, current.7]
                == [
                    draft.topic, draft.kind, draft.title, draft.markdown, draft.reviewer, draft.reviewedOn.description,
                    draft.nextReviewOn?.description,
                ]
        {
            return .unchanged(version: current.0)
        }
        let version = (current?.0 ?? 0) + 1
        try await session.query(
            """
            INSERT INTO articles (article_id, language, version, topic, kind, title, markdown, html, plain, reviewer, reviewed_on,
                                  next_review_on, published_by)
            VALUES (\(articleID), \(language), \(version), \(draft.topic), \(draft.kind), \(draft.title), \(draft.markdown), \(draft.html),
                    \(draft.text), \(draft.reviewer), \(draft.reviewedOn.description)::date, \(draft.nextReviewOn?.description)::date,
                    \(publisher))
            """)
        return .created(version: version)
    }

    /// The languages an article is published in.
    func languages(of articleID: String) async throws -> [String] {
        try await session.fetchAll(
            "SELECT DISTINCT language FROM articles WHERE article_id = \(articleID) ORDER BY language", as: String.self)
    }

    /// The current version in `language` (or version `version`), nil if there is none.
    func article(_ articleID: String, language: String, version: Int? = nil) async throws
        -> Article?
    {
        try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM articles
            WHERE article_id = \(articleID) AND language = \(language) AND (\(version)::int IS NULL OR version = \(version))
            ORDER BY version DESC LIMIT 1
            """, as: Row.self
        ).first.map(Self.article)
    }

    /// Every version in `language`, newest first.
    func versions(_ articleID: String, language: String) async throws -> [Article] {
        try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM articles WHERE article_id = \(articleID) AND language = \(language) ORDER BY version DESC LIMIT 500
            """, as: Row.self
        ).map(Self.article)
    }

    /// The current versions matching the filters, one per article in the first of `languages` it has (else any),
    /// best matches of `words` first, else by topic.
    func search(
        words: String?, topic: String?, kind: String?, languages: [String], limit: Int
    ) async throws -> [Summary] {
        let rows = try await session.fetchAll(
            """
            WITH current AS (
                SELECT DISTINCT ON (article_id, language) * FROM articles ORDER BY article_id, language, version DESC),
            chosen AS (
                SELECT DISTINCT ON (article_id) * FROM current
                WHERE (\(topic)::text IS NULL OR topic = \(topic) OR topic LIKE \(topic) || '.%')
                  AND (\(kind)::text IS NULL OR kind = \(kind))
                  AND (\(words)::text IS NULL OR words @@ plainto_tsquery('simple', \(words)))
                ORDER BY article_id, coalesce(array_position(\(languages)::text[], language), 1000), language)
            SELECT article_id, language, version, topic, kind, title, left(plain, 200), reviewed_on::text FROM chosen
            ORDER BY CASE WHEN \(words)::text IS NULL THEN 0 ELSE ts_rank(words, plainto_tsquery('simple', \(words))) END DESC, topic, article_id
            LIMIT \(limit)
            """, as: (String, String, Int, String, String, String, String, String).self)
        return rows.map {
            Summary(articleId: $0.0, language: $0.1, version: $0.2, topic: $0.3, kind: $0.4, title: $0.5, excerpt: $0.6, reviewedOn: $0.7)
        }
    }

    /// The reader's tip of the day: the one already chosen for `day`, else one of the published tips in the first of
    /// `languages` that has any (else any language), not shown to them in the six days before (else the one shown
    /// longest ago). Different readers start at different tips, so a ward does not read the same one together.
    func tipOfTheDay(for recipient: NotificationStore.Recipient, on day: LocalDate, languages: [String]) async throws -> (String, String)? {
        let (id, role) = (recipient.id, recipient.role.rawValue)
        _ = try await session.query(
            "SELECT pg_advisory_xact_lock(hashtextextended('tip:' || \(role) || ':' || \(id), 0))")
        let tips = try await session.fetchAll(
            """
            SELECT DISTINCT ON (article_id) article_id, language FROM articles WHERE kind = 'tip'
            ORDER BY article_id, coalesce(array_position(\(languages)::text[], language), 1000), language
            """, as: (String, String).self)
        let candidates = Self.tipCandidates(tips, languages: languages)
        guard !candidates.isEmpty else { return nil }
        let shown = try await session.fetchAll(
            """
            SELECT article_id, shown_on::text FROM tips_shown
            WHERE recipient_id = \(id) AND recipient_role = \(role) AND shown_on BETWEEN \(day.addingDays(-6).description)::date AND \(day.description)::date
            ORDER BY shown_on
            """, as: (String, String).self)
        if let today = shown.last(where: { $0.1 == day.description }), let tip = candidates.first(where: { $0.0 == today.0 }) { return tip }
        let chosen = Self.freshTip(among: candidates, shownThisWeek: shown.map(\.0), reader: "\(role):\(id)", day: day)
        try await session.query(
            """
            INSERT INTO tips_shown (recipient_id, recipient_role, shown_on, article_id) VALUES (\(id), \(role), \(day.description)::date, \(chosen.0))
            ON CONFLICT (recipient_id, recipient_role, shown_on) DO UPDATE SET article_id = EXCLUDED.article_id
            """)
        return chosen
    }

    /// The tips a reader may get, of one per article as `tips` lists them (id, language): those in the first of
    /// `languages` that has any; when none is in any of them, every tip (a tip in another language is a fallback for all).
    static func tipCandidates(_ tips: [(String, String)], languages: [String]) -> [(String, String)] {
        let best = tips.map { languages.firstIndex(of: $0.1) ?? languages.count }.min() ?? 0
        return tips.filter { (languages.firstIndex(of: $0.1) ?? languages.count) == best }
    }

    /// The reader's tip for a day not yet given one, of `candidates` (not empty): one not among the article ids
    /// shown to them this week (`shown`, oldest first), picked by a hash of the reader and the day, so readers start at
    /// different tips; when every tip was shown this week, the one shown longest ago.
    static func freshTip(among candidates: [(String, String)], shownThisWeek shown: [String], reader: String, day: LocalDate) -> (String, String) {
        let recent = Set(shown)
        let fresh = candidates.filter { !recent.contains($0.0) }
        guard !fresh.isEmpty else {
            // Every tip was shown this week: the one shown longest ago comes back first.
            return candidates.min { (shown.lastIndex(of: $0.0) ?? -1) < (shown.lastIndex(of: $1.0) ?? -1) }!
        }
        var hash: UInt64 = 14_695_981_039_346_656_037  // FNV-1a: stable across processes, unlike hashValue
        for byte in "\(reader):\(day)".utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return fresh[Int(hash % UInt64(fresh.count))]
    }

    private static let columns =
        "article_id, language, version, topic, kind, title, html, plain, reviewer, reviewed_on::text, next_review_on::text, published_at"
    private typealias Row = (String, String, Int, String, String, String, String, String, String, String, String?, Date)

    private static func article(_ row: Row) -> Article {
        Article(
            articleId: row.0, language: row.1, version: row.2, topic: row.3, kind: row.4, title: row.5, html: row.6, text: row.7, reviewer: row.8,
            reviewedOn: row.9, nextReviewOn: row.10, publishedAt: row.11)
    }
}
