public import CaretideDomain
import CaretideSchemas
public import Foundation

/// The languages tips and labels are answered in: English, built in, and any translation an operator adds as data, a
/// `<language>.json` file (`{"bloodPressure.stage1": "…", …}`) in `TIP_TRANSLATIONS_DIR`. A request picks one with
/// `Accept-Language` (RFC 9110 §12.5.4); English when it names none of them.
public struct TipCatalog: Sendable {
    public let languages: [TipTexts]

    public init(translations: [TipTexts] = []) { languages = [TipTexts.english] + translations }

    /// `TIP_TRANSLATIONS_DIR`: translations of the tips, labels, report and inbox words, one `<language>.json` each;
    /// English alone without it. Throws naming the variable and every file that is not a translation.
    public static func configured(_ environment: [String: String]) throws(InvalidConfiguration) -> TipCatalog {
        guard let directory = environment["TIP_TRANSLATIONS_DIR"] else { return TipCatalog() }
        return try load(directory: URL(fileURLWithPath: directory))
    }

    /// Reads every `<language>.json` of `directory`, or names each file that is not a flat object of known keys to
    /// texts.
    public static func load(directory: URL) throws(InvalidConfiguration) -> TipCatalog {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        } catch {
            throw InvalidConfiguration(problems: ["TIP_TRANSLATIONS_DIR cannot be read: \(directory.path)"])
        }
        var problems: [String] = []
        var translations: [TipTexts] = []
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
            let language = file.deletingPathExtension().lastPathComponent
            guard let data = try? Data(contentsOf: file), case .object(let members)? = try? CaretideJSON.parse(Array(data)) else {
                problems.append("TIP_TRANSLATIONS_DIR: \(file.lastPathComponent) is not a JSON object")
                continue
            }
            var texts: [String: String] = [:]
            for (key, value) in members {
                guard TipTexts.keys.contains(key), let text = value.stringValue, !text.isEmpty else {
                    problems.append("TIP_TRANSLATIONS_DIR: \(file.lastPathComponent) has an unknown key or a value that is not text")
                    break
                }
                texts[key] = text
            }
            translations.append(TipTexts(language: language, texts: texts))
        }
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
        return TipCatalog(translations: translations)
    }

    /// The language the caller prefers most among those there are: an exact tag first (`pt-BR`), then its primary
    /// language (`pt`); `*` or nothing known is English.
    public func texts(acceptLanguage header: String?) -> TipTexts {
        for range in AcceptLanguage.ranges(header) {
            if let exact = languages.first(where: { $0.language.lowercased() == range }) { return exact }
            let primary = range.split(separator: "-").first.map(String.init) ?? range
            if let match = languages.first(where: { $0.language.lowercased() == primary || $0.language.lowercased().hasPrefix(primary + "-") }) {
                return match
            }
        }
        return languages[0]
    }
}
