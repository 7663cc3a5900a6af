import CaretideDomain
import CaretideSchemas
import Testing

/// Every notification an inbox can hold has its words: a title and a sentence for each kind, English built in.
@Suite struct InboxWordsTests {
    @Test("every kind, every assessment kind among them, has a title and a sentence; every sentence of a category belongs to a kind")
    func everyKindHasWords() {
        for kind in AssessmentKind.allCases { #expect(InboxWords.kinds.contains(kind.rawValue), "\(kind)") }
        for kind in InboxWords.kinds {
            #expect(TipTexts.english.text("inbox.\(kind).title")?.isEmpty == false, "\(kind)")
            #expect(TipTexts.english.text("inbox.\(kind).body")?.isEmpty == false, "\(kind)")
        }
        for key in InboxWords.english.keys {
            let parts = key.split(separator: ".")
            #expect(parts.first == "inbox" && InboxWords.kinds.contains(String(parts[1])) && ["title", "body"].contains(parts.last ?? ""), "\(key)")
        }
        // A broadcast's kinds have their own titles (an activity is not health information).
        #expect(TipTexts.english.text("inbox.broadcast.activity.title") == "Activity")
        // A translation may give them, as it gives the tips.
        #expect(TipTexts.keys.contains("inbox.message.title"))
    }
}
