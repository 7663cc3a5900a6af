import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// What publishing checks that the article schema cannot: real review dates, not in the future, the next review after
/// the last, and Markdown the renderer will parse.
@Suite struct ArticleDraftTests {
    static let today = LocalDate("2026-11-21")!

    static func body(markdown: String = "Check your skin **once a month**.", reviewedOn: String = "2026-11-01", nextReviewOn: String? = nil)
        -> ArticleRoutes.Body
    {
        ArticleRoutes.Body(
            topic: "melanoma.selfExamination", kind: nil, title: "How to check your skin", markdown: markdown, reviewer: "Dermatology board",
            reviewedOn: reviewedOn, nextReviewOn: nextReviewOn)
    }

    static func refusal(_ body: ArticleRoutes.Body) -> [String] {
        do {
            _ = try ArticleRoutes.draft(body, today: today)
            return []
        } catch let problem as HTTPProblem {
            #expect(problem.error == "the article is invalid")
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test("a draft is the Markdown rendered to sanitised HTML and plain text; kind defaults to article")
    func rendered() throws {
        let draft = try ArticleRoutes.draft(Self.body(nextReviewOn: "2027-11-01"), today: Self.today)
        #expect(draft.kind == "article")
        #expect(draft.html.contains("<strong>once a month</strong>"))
        #expect(draft.text.contains("Check your skin once a month.") && !draft.text.contains("**"))
        #expect(draft.reviewedOn == LocalDate("2026-11-01") && draft.nextReviewOn == LocalDate("2027-11-01"))
        let script = try ArticleRoutes.draft(Self.body(markdown: "Hello <script>alert(1)</script> there"), today: Self.today)
        #expect(!script.html.lowercased().contains("<script"))
    }

    @Test("the review date may be today, not later, and must be a real day")
    func reviewedOn() {
        #expect(Self.refusal(Self.body(reviewedOn: "2026-11-21")).isEmpty)
        #expect(Self.refusal(Self.body(reviewedOn: "2026-11-22")) == ["/reviewedOn"])
        #expect(Self.refusal(Self.body(reviewedOn: "2026-02-30")) == ["/reviewedOn"])
    }

    @Test("the next review must be a real day after the review: the same day is refused")
    func nextReviewOn() {
        #expect(Self.refusal(Self.body(nextReviewOn: "2026-11-02")).isEmpty)
        #expect(Self.refusal(Self.body(nextReviewOn: "2026-11-01")) == ["/nextReviewOn"])
        #expect(Self.refusal(Self.body(nextReviewOn: "2026-10-31")) == ["/nextReviewOn"])
        #expect(Self.refusal(Self.body(nextReviewOn: "2027-13-01")) == ["/nextReviewOn"])
    }

    @Test("Markdown nesting brackets deeper than the renderer allows is refused, with every other fault in the same answer")
    func everyFaultAtOnce() {
        let deep = String(repeating: "[", count: 9) + "x"
        #expect(Self.refusal(Self.body(markdown: deep)) == ["/markdown"])
        #expect(
            Self.refusal(Self.body(markdown: deep, reviewedOn: "2026-12-01", nextReviewOn: "2026-11-30")) == [
                "/reviewedOn", "/nextReviewOn", "/markdown",
            ])
    }
}

/// The language an article is answered in (`ArticleRoutes.language(among:asked:preferred:)`).
@Suite struct ArticleLanguageTests {
    static let available = ["de", "en", "pt-BR"]

    @Test("a language asked for by name is answered only if the article has it: no fallback")
    func asked() {
        #expect(ArticleRoutes.language(among: Self.available, asked: "de", preferred: ["en"]) == "de")
        #expect(ArticleRoutes.language(among: Self.available, asked: "fr", preferred: ["en"]) == nil)
    }

    @Test("the first preferred language the article has, exactly or by its primary tag, in either direction")
    func preferred() {
        #expect(ArticleRoutes.language(among: Self.available, asked: nil, preferred: ["pt-br", "en"]) == "pt-BR")
        #expect(ArticleRoutes.language(among: Self.available, asked: nil, preferred: ["pt", "en"]) == "pt-BR")
        #expect(ArticleRoutes.language(among: Self.available, asked: nil, preferred: ["de-ch", "en"]) == "de")
        #expect(ArticleRoutes.language(among: Self.available, asked: nil, preferred: ["fr", "de", "en"]) == "de")
    }

    @Test("without a match, English, else the first the article has; none when it has none")
    func fallbacks() {
        #expect(ArticleRoutes.language(among: Self.available, asked: nil, preferred: ["fr"]) == "en")
        #expect(ArticleRoutes.language(among: ["pt", "de"], asked: nil, preferred: ["fr"]) == "pt")
        #expect(ArticleRoutes.language(among: [], asked: nil, preferred: ["en"]) == nil)
    }
}

/// The tip of the day (`ArticleStore.tipCandidates`, `ArticleStore.freshTip`): in the reader's language, not repeated
/// within a week, different readers starting at different tips.
@Suite struct TipOfTheDayTests {
    static let day = LocalDate("2026-11-21")!

    @Test("tips in the reader's first language that has any; in no language of theirs, every tip")
    func candidates() {
        let tips = [("tip.a", "pt"), ("tip.b", "en"), ("tip.c", "pt"), ("tip.d", "de")]
        #expect(ArticleStore.tipCandidates(tips, languages: ["pt", "en"]).map(\.0) == ["tip.a", "tip.c"])
        #expect(ArticleStore.tipCandidates(tips, languages: ["fr", "en"]).map(\.0) == ["tip.b"])
        let noEnglish = [("tip.a", "pt"), ("tip.d", "de")]
        #expect(ArticleStore.tipCandidates(noEnglish, languages: ["fr", "en"]).map(\.0) == ["tip.a", "tip.d"])
        #expect(ArticleStore.tipCandidates([], languages: ["en"]).isEmpty)
    }

    @Test("a tip shown this week is not chosen while another has not been")
    func notRepeated() {
        let candidates = [("tip.a", "en"), ("tip.b", "en"), ("tip.c", "en")]
        for reader in ["patient:p-1", "patient:p-2", "consultant:dr-a"] {
            #expect(ArticleStore.freshTip(among: candidates, shownThisWeek: ["tip.a", "tip.b"], reader: reader, day: Self.day).0 == "tip.c")
        }
    }

    @Test("when every tip was shown this week, the one last shown longest ago comes back")
    func longestAgo() {
        let candidates = [("tip.a", "en"), ("tip.b", "en"), ("tip.c", "en")]
        // tip.b was shown first but again since; tip.a's last showing is the oldest.
        let shown = ["tip.b", "tip.a", "tip.c", "tip.b"]
        #expect(ArticleStore.freshTip(among: candidates, shownThisWeek: shown, reader: "patient:p-1", day: Self.day).0 == "tip.a")
    }

    @Test("the choice depends only on the reader and the day, and readers spread over the tips")
    func stableAndSpread() {
        let candidates = (1...5).map { ("tip.\($0)", "en") }
        let first = ArticleStore.freshTip(among: candidates, shownThisWeek: [], reader: "patient:p-1", day: Self.day).0
        #expect(ArticleStore.freshTip(among: candidates, shownThisWeek: [], reader: "patient:p-1", day: Self.day).0 == first)
        let chosen = Set((1...40).map { ArticleStore.freshTip(among: candidates, shownThisWeek: [], reader: "patient:p-\($0)", day: Self.day).0 })
        #expect(chosen.count > 1)
    }
}

/// The content pack's page files (`ContentPack.page`): front matter, sources, and the publishing route's own checks.
@Suite struct ContentPackPageTests {
    static let file = "/pack/en/skin-check.md"
    static let text = """
        ---
        id: skin-check
        topic: melanoma.selfExamination
        title: How to check your skin
        sources:
          - WHO, Skin cancers
          - NICE NG12
        reviewer: Dermatology editorial board
        reviewedOn: 2024-05-01
        ---
        Check your skin **once a month**.

        """

    static func problem(_ text: String, file: String = ContentPackPageTests.file) -> String? {
        do {
            _ = try ContentPack.page(text, language: "en", file: file)
            return nil
        } catch let problem as ContentPack.Problem {
            #expect(problem.file == file)
            return problem.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a page's front matter, its sources as a list, and the Markdown after it; kind defaults to article")
    func parsed() throws {
        let page = try ContentPack.page(Self.text, language: "en", file: Self.file)
        #expect(page.id == "skin-check" && page.topic == "melanoma.selfExamination" && page.kind == "article")
        #expect(page.title == "How to check your skin" && page.reviewer == "Dermatology editorial board" && page.reviewedOn == "2024-05-01")
        #expect(page.sources == ["WHO, Skin cancers", "NICE NG12"])
        #expect(page.markdown == "Check your skin **once a month**.\n")
        // Files written on Windows read the same.
        #expect(try ContentPack.page(Self.text.replacingOccurrences(of: "\n", with: "\r\n"), language: "en", file: Self.file) == page)
    }

    @Test("the Markdown published ends with the sources under a heading in the page's language")
    func published() throws {
        let english = try ContentPack.page(Self.text, language: "en", file: Self.file)
        #expect(english.published == "Check your skin **once a month**.\n\n## Sources\n\n- WHO, Skin cancers\n- NICE NG12\n")
        let portuguese = try ContentPack.page(Self.text, language: "pt", file: "/pack/pt/skin-check.md")
        #expect(portuguese.published.contains("\n## Fontes\n"))
    }

    @Test("a page without front matter, with a stray line, a key given twice, a missing field or no source is refused")
    func malformed() {
        #expect(Self.problem("Check your skin.\n")?.contains("front-matter block") == true)
        #expect(Self.problem(Self.text.replacingOccurrences(of: "title: How", with: "title How"))?.contains("is not key: value") == true)
        #expect(Self.problem(Self.text.replacingOccurrences(of: "reviewer:", with: "topic: x\nreviewer:")) == "topic is given twice")
        #expect(Self.problem(Self.text.replacingOccurrences(of: "title: How to check your skin\n", with: "")) == "the front matter lacks title")
        #expect(Self.problem(Self.text.replacingOccurrences(of: "  - WHO, Skin cancers\n  - NICE NG12\n", with: "")) == "cites no source")
    }

    @Test("the id must be the file's name")
    func idIsTheFileName() {
        #expect(Self.problem(Self.text, file: "/pack/en/self-check.md")?.hasPrefix("id must be the file's name") == true)
    }

    @Test("a page is held to the publishing route's rules: the schema's topic form and a real review date")
    func routeRules() {
        let badTopic = Self.problem(Self.text.replacingOccurrences(of: "topic: melanoma.selfExamination", with: "topic: Melanoma"))
        #expect(badTopic?.hasPrefix("/topic") == true)
        let badDate = Self.problem(Self.text.replacingOccurrences(of: "2024-05-01", with: "2024-02-30"))
        #expect(badDate?.hasPrefix("the article is invalid") == true && badDate?.contains("/reviewedOn") == true)
    }
}
