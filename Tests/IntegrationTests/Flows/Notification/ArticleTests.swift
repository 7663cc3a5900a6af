import CaretideIdentity
import CaretideStore
import CaretideTestSupport
import Foundation
import NotificationService
import PostgresNIO
import Testing

/// Information pages over HTTP against the real database: published by operators and institutions as versions with
/// a reviewer, served sanitised in the reader's language with Content-Language and ETag, found by word; and a tip of
/// the day not repeated within a week.
@Suite(.serialized, .stoppingStacks) struct ArticleTests {
    static let operatorCaller = Caller.identity(Identity(subject: "ops-1", role: .operator))
    static let patient = Caller.identity(Identity(subject: "p-read", role: .patient))
    static let staff = Caller.identity(Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"))

    static func article(topic: String, title: String, markdown: String, kind: String = "article", reviewedOn: String = "2026-11-01") -> String {
        let escaped = markdown.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return
            #"{"topic": "\#(topic)", "kind": "\#(kind)", "title": "\#(title)", "markdown": "\#(escaped)", "reviewer": "Dermatology board", "reviewedOn": "\#(reviewedOn)", "nextReviewOn": "2027-11-01"}"#
    }

    static func get(_ url: String, as caller: Caller = patient, headers: [String: String]) async throws -> HTTP.Reply {
        try await HTTP.send(method: "GET", url, body: nil, as: caller, headers: headers)
    }

    @Test(
        "articles are published as versions with a reviewer, served sanitised in the reader's language with ETag and Content-Language, and found by word; a <script> never reaches a page"
    )
    func publishAndRead() async throws {
        let stack = try await TestStack.start([NotificationService.definition])
        let base = stack.baseURL(NotificationService.name)
        let url = "\(base)/v1/articles/melanoma.self-examination"
        let english = Self.article(
            topic: "melanoma.selfExamination", title: "How to check your skin",
            markdown:
                "Check **once a month**.\n\n<script>alert('x')</script>\n\n[More](javascript:alert(1)) and [the guide](https://www.example.org/guide)"
        )

        // Only operators publish under /v1/articles; patients and institutions may not.
        #expect(try await HTTP.send(method: "PUT", "\(url)/en", json: english, as: Self.patient).status == 403)
        #expect(try await HTTP.send(method: "PUT", "\(url)/en", json: english, as: Self.staff).status == 403)
        let created = try await HTTP.send(method: "PUT", "\(url)/en", json: english, as: Self.operatorCaller)
        #expect(created.status == 201 && created.text.contains(#""version":1"#))
        #expect(try await HTTP.send(method: "PUT", "\(url)/en", json: english, as: Self.operatorCaller).text.contains(#""unchanged""#))
        let german = Self.article(topic: "melanoma.selfExamination", title: "So prüfen Sie Ihre Haut", markdown: "Einmal **im Monat** prüfen.")
        #expect(try await HTTP.send(method: "PUT", "\(url)/de", json: german, as: Self.operatorCaller).status == 201)
        let corrected = english.replacingOccurrences(of: "once a month", with: "once every month")
        #expect(try await HTTP.send(method: "PUT", "\(url)/en", json: corrected, as: Self.operatorCaller).text.contains(#""version":2"#))
        // Bad input is named: a review in the future, a next review before it, a language that is not a tag.
        let future = Self.article(topic: "help.photos", title: "x", markdown: "y", reviewedOn: "2999-01-01")
        let refused = try await HTTP.send(method: "PUT", "\(base)/v1/articles/help.photos/en", json: future, as: Self.operatorCaller)
        #expect(refused.status == 422 && refused.text.contains("/reviewedOn") && refused.text.contains("/nextReviewOn"))
        #expect(try await HTTP.send(method: "PUT", "\(base)/v1/articles/help.photos/English", json: english, as: Self.operatorCaller).status == 400)

        // Read in the language asked for, sanitised, with its headers; the same ETag again is a 304.
        let read = try await Self.get(url, headers: ["Accept-Language": "de-CH, en;q=0.5"])
        let page = try #require(try read.json() as? [String: Any])
        #expect(read.status == 200 && read.header("Content-Language") == "de" && page["title"] as? String == "So prüfen Sie Ihre Haut")
        #expect(read.header("ETag") == #""de.1""# && read.header("Cache-Control")?.contains("max-age") == true)
        #expect(try await Self.get(url, headers: ["Accept-Language": "de", "If-None-Match": #""de.1""#]).status == 304)
        let englishPage = try #require(try await Self.get(url, headers: ["Accept-Language": "fr, en"]).json() as? [String: Any])
        let html = englishPage["html"] as? String ?? ""
        #expect(englishPage["version"] as? Int == 2 && html.contains("<strong>once every month</strong>"))
        #expect(!html.lowercased().contains("<script") && !html.contains("javascript:") && html.contains(#"href="https://www.example.org/guide""#))
        #expect((englishPage["text"] as? String)?.contains("Check once every month.") == true)
        #expect(englishPage["reviewer"] as? String == "Dermatology board" && englishPage["reviewedOn"] as? String == "2026-11-01")
        let first = try #require(try await Self.get("\(url)?language=en&version=1", headers: [:]).json() as? [String: Any])
        #expect((first["html"] as? String)?.contains("once a month") == true)
        #expect(try await Self.get("\(url)/versions?language=en", headers: [:]).items().map { $0["version"] as? Int } == [2, 1])
        #expect(try await Self.get("\(base)/v1/articles/no-such-page", headers: [:]).status == 404)

        // An institution explains one of its tests by code; another institution cannot write under its name.
        let explanation = Self.article(topic: "examTest.2345-7", title: "Glucose", markdown: "The sugar in your blood.")
        #expect(
            try await HTTP.send(
                method: "PUT", "\(base)/v1/institutions/st-mary/articles/exam-test.2345-7/en", json: explanation, as: Self.staff
            ).status == 201)
        #expect(
            try await HTTP.send(
                method: "PUT", "\(base)/v1/institutions/st-john/articles/exam-test.2345-7/en", json: explanation, as: Self.staff
            ).status == 403)
        let glucose = try await Self.get("\(base)/v1/institutions/st-mary/exam-tests/2345-7/explanation", headers: [:])
        #expect(glucose.status == 200 && glucose.text.contains("The sugar in your blood."))
        #expect(try await Self.get("\(base)/v1/institutions/st-mary/exam-tests/718-7/explanation", headers: [:]).status == 404)

        // Search by word across titles and text, one result per article, in the reader's language.
        let found = try await Self.get("\(base)/v1/articles?q=month", headers: ["Accept-Language": "en"]).items()
        #expect(found.map { $0["articleId"] as? String } == ["melanoma.self-examination"] && found.first?["language"] as? String == "en")
        let byTopic = try await Self.get("\(base)/v1/articles?topic=melanoma", headers: ["Accept-Language": "de"]).items()
        #expect(byTopic.count == 1 && byTopic.first?["language"] as? String == "de")
        #expect(try await Self.get("\(base)/v1/articles?q=sugar", headers: [:]).items().first?["articleId"] as? String == "st-mary:exam-test.2345-7")
        #expect(try await Self.get("\(base)/v1/articles?kind=poem", headers: [:]).status == 400)
    }

    @Test("a tip of the day in the reader's language: the same all day, none repeated within a week, then the one shown longest ago")
    func tipOfTheDay() async throws {
        let stack = try await TestStack.start([NotificationService.definition])
        let base = stack.baseURL(NotificationService.name)
        #expect(try await Self.get("\(base)/v1/tips/today", headers: [:]).status == 404)
        for (id, title) in [("tip.water", "Drink water"), ("tip.walk", "Walk daily"), ("tip.shade", "Seek shade")] {
            let tip = Self.article(topic: "tips.general", title: title, markdown: "\(title).", kind: "tip")
            #expect(try await HTTP.send(method: "PUT", "\(base)/v1/articles/\(id)/en", json: tip, as: Self.operatorCaller).status == 201)
        }
        let german = Self.article(topic: "tips.general", title: "Wasser trinken", markdown: "Wasser trinken.", kind: "tip")
        #expect(try await HTTP.send(method: "PUT", "\(base)/v1/articles/tip.water/de", json: german, as: Self.operatorCaller).status == 201)

        // A German reader gets the one German tip; the same answer all day.
        let inGerman = try await Self.get(
            "\(base)/v1/tips/today", as: .identity(Identity(subject: "p-de", role: .patient)), headers: ["Accept-Language": "de"])
        #expect(inGerman.header("Content-Language") == "de" && inGerman.text.contains("Wasser trinken"))

        // This reader was shown two of the three in the last six days: today is the third, again and again.
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query(
                """
                INSERT INTO tips_shown (recipient_id, recipient_role, shown_on, article_id) VALUES
                    ('p-read', 'patient', \(today)::date - 6, 'tip.walk'), ('p-read', 'patient', \(today)::date - 1, 'tip.water')
                """, logger: logger)
        }
        for _ in 0..<3 {
            let tip = try #require(try await Self.get("\(base)/v1/tips/today", headers: ["Accept-Language": "en"]).json() as? [String: Any])
            #expect(tip["articleId"] as? String == "tip.shade")
        }
        // Had all three been shown this week, the one shown longest ago comes back.
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query(
                """
                UPDATE tips_shown SET shown_on = \(today)::date - 3 WHERE recipient_id = 'p-read' AND article_id = 'tip.shade'
                """, logger: logger)
        }
        let again = try #require(try await Self.get("\(base)/v1/tips/today", headers: [:]).json() as? [String: Any])
        #expect(again["articleId"] as? String == "tip.walk")
    }
}
