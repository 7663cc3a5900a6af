import CaretideDomain
import CaretideRuntime
import Foundation
import Testing

@testable import ScoringService

/// Tips and labels in the caller's language: `Accept-Language` (RFC 9110 §12.5.4) and translations kept as data.
@Suite struct TipCatalogTests {
    let portuguese = TipTexts(language: "pt-BR", texts: ["bloodPressure.stage1": "Sua pressão está alta (estágio 1)."])

    @Test("language ranges are ordered by q, then by their order; q=0 and blanks are left out")
    func ranges() {
        #expect(AcceptLanguage.ranges("da, en-GB;q=0.8, en;q=0.7") == ["da", "en-gb", "en"])
        #expect(AcceptLanguage.ranges("en;q=0.5, pt-BR") == ["pt-br", "en"])
        #expect(AcceptLanguage.ranges("fr;q=0, de ; q=0.9 ,, ") == ["de"])
        #expect(AcceptLanguage.ranges(nil).isEmpty)
    }

    @Test("the most preferred language there is: exact tag, then its primary language; English otherwise")
    func choice() {
        let catalog = TipCatalog(translations: [portuguese])
        #expect(catalog.texts(acceptLanguage: "pt-BR").language == "pt-BR")
        #expect(catalog.texts(acceptLanguage: "pt-PT, en;q=0.1").language == "pt-BR")
        #expect(catalog.texts(acceptLanguage: "de, en;q=0.5").language == "en")
        #expect(catalog.texts(acceptLanguage: "de").language == "en")
        #expect(catalog.texts(acceptLanguage: nil).language == "en")
    }

    @Test("a key a translation leaves out is answered in English, never as the bare key")
    func fallback() {
        #expect(portuguese.text("bloodPressure.stage1") == "Sua pressão está alta (estágio 1).")
        #expect(portuguese.text("bloodPressure.normal") == Tips.english[.bloodPressureNormal])
        #expect(portuguese.text("severity.urgent") == "Urgent")
        #expect(portuguese.text("no.such.key") == nil)
        // Every tip key has English text.
        #expect(TipKey.allCases.allSatisfy { TipTexts.english.text($0.rawValue) != nil })
    }

    @Test("translations load from a directory; a file with an unknown key or a non-text value is named")
    func loading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tips-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"pulse.normal": "Seu pulso está normal."}"#.utf8).write(to: directory.appendingPathComponent("pt-BR.json"))
        let catalog = try TipCatalog.load(directory: directory)
        #expect(catalog.languages.map(\.language) == ["en", "pt-BR"])
        #expect(catalog.texts(acceptLanguage: "pt").text("pulse.normal") == "Seu pulso está normal.")

        try Data(#"{"pulse.normal": 3}"#.utf8).write(to: directory.appendingPathComponent("de.json"))
        try Data(#"{"no.such.key": "x"}"#.utf8).write(to: directory.appendingPathComponent("fr.json"))
        #expect(throws: InvalidConfiguration.self) { try TipCatalog.load(directory: directory) }
        do {
            _ = try TipCatalog.load(directory: directory)
        } catch {
            #expect(error.problems.count == 2)
            #expect(error.problems.contains { $0.contains("de.json") } && error.problems.contains { $0.contains("fr.json") })
        }
        #expect(throws: InvalidConfiguration.self) { try TipCatalog.load(directory: directory.appendingPathComponent("missing")) }
    }
}
