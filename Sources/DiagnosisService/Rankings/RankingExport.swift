import CaretideCharts
import CaretideSchemas
import Foundation
import PhenotypeRanking

/// A ranking as a clinician files it with the patient's notes: a CSV file (RFC 4180) or a page laid out as the
/// patient reports are (`CaretideCharts.ReportPage`: escaped throughout, no script), each with the query, the
/// release, the method and every result with its explanation. Pure: a `diagnosis.ranked` answer in, text out.
enum RankingExport {
    static let method = "Phenomizer (Köhler et al. 2009): Resnik similarity, p-values from random queries of the same size"

    /// One row per result and query term (long form, so a spreadsheet can filter and sort), each row carrying the
    /// release and the method so a row copied elsewhere still says where it came from.
    static func csv(_ ranked: DiagnosisRanked) -> String {
        let header = [
            "rank", "disease_id", "disease_name", "score", "p_value", "adjusted_p_value", "query_term_id", "query_term_name",
            "matched_term_id", "matched_term_name", "common_ancestor_id", "common_ancestor_name", "information_content",
            "hpo_release", "ontology_version", "annotation_version", "scoring", "ordering",
        ]
        var lines = [header.map(field).joined(separator: ",")]
        let release = [
            "\(ranked.release.releaseID)", ranked.release.ontologyVersion ?? "", ranked.release.annotationVersion ?? "", ranked.scoring.rawValue,
            "\(RankingOrdering.standard)",
        ]
        for result in ranked.results {
            let disease = [
                "\(result.rank)", result.diseaseID, result.diseaseName, number(result.score), number(result.pValue), number(result.adjustedPValue),
            ]
            let matches = result.matches.isEmpty ? [nil] : result.matches.map(Optional.some)
            for match in matches {
                let explanation =
                    match.map {
                        [
                            $0.queryTerm.id, $0.queryTerm.name, $0.diseaseTerm.id, $0.diseaseTerm.name, $0.commonAncestor.id, $0.commonAncestor.name,
                            number($0.informationContent),
                        ]
                    } ?? Array(repeating: "", count: 7)
                lines.append((disease + explanation + release).map(field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180 §2); and a text a spreadsheet
    /// would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is prefixed with an apostrophe
    /// (OWASP, CSV injection), numbers excepted.
    static func field(_ text: String) -> String {
        var text = text
        if let first = text.first, "=+-@\t\r".contains(first), Double(text) == nil { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func number(_ value: Double) -> String { String(format: "%.6g", value) }

    /// The page: the query, the results, then each result's explanation.
    static func page(_ ranked: DiagnosisRanked, generatedAt: Date) -> ReportPage {
        let release =
            "HPO release \(ranked.release.releaseID) (ontology \(ranked.release.ontologyVersion ?? "unknown"), "
            + "annotations \(ranked.release.annotationVersion ?? "unknown"))"
        var query = ranked.queryTerms.map { [ReportPage.Cell("present"), ReportPage.Cell($0.id), ReportPage.Cell($0.name)] }
        query += ranked.excludedTerms.map { [ReportPage.Cell("absent"), ReportPage.Cell($0.id), ReportPage.Cell($0.name)] }
        let results = ranked.results.map { result in
            [
                ReportPage.Cell("\(result.rank)"), ReportPage.Cell("\(result.diseaseName) (\(result.diseaseID))"),
                ReportPage.Cell(number(result.score)), ReportPage.Cell(number(result.pValue)), ReportPage.Cell(number(result.adjustedPValue)),
            ]
        }
        var sections = [
            ReportPage.Section(
                heading: "Query",
                paragraphs: ["\(ranked.queryTerms.count) phenotypes present, \(ranked.excludedTerms.count) checked and absent."]
                    + ranked.warnings.map(\.message),
                tables: [ReportPage.Table(caption: "Phenotypes", header: ["", "HPO id", "Name"], rows: query)]),
            ReportPage.Section(
                heading: "Diseases",
                paragraphs: [
                    "\(method); \(ranked.scoring.rawValue) scoring over \(ranked.diseaseCount) diseases, ordered by \(RankingOrdering.standard). "
                        + "Adjusted p: Benjamini–Hochberg over all diseases."
                ],
                tables: [ReportPage.Table(caption: "Ranked diseases", header: ["Rank", "Disease", "Score", "p", "Adjusted p"], rows: results)]),
        ]
        sections += ranked.results.map { result in
            ReportPage.Section(
                heading: "\(result.rank). \(result.diseaseName)",
                paragraphs: result.excludedTermsPresent.isEmpty
                    ? []
                    : [
                        "Carries phenotypes checked as absent: " + result.excludedTermsPresent.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
                            + "."
                    ],
                tables: [
                    ReportPage.Table(
                        caption: "Why \(result.diseaseID) ranks here: each query phenotype's best match, most informative first",
                        header: ["Query phenotype", "Matched phenotype of the disease", "Shared ancestor", "Information content"],
                        rows: result.matches.map {
                            [
                                ReportPage.Cell("\($0.queryTerm.name) (\($0.queryTerm.id))"),
                                ReportPage.Cell("\($0.diseaseTerm.name) (\($0.diseaseTerm.id))"),
                                ReportPage.Cell("\($0.commonAncestor.name) (\($0.commonAncestor.id))"),
                                ReportPage.Cell(number($0.informationContent)),
                            ]
                        })
                ])
        }
        return ReportPage(
            title: "Differential diagnosis ranking", subtitle: "\(release) · made \(Timestamp.format(generatedAt))", language: "en",
            sections: sections,
            footer:
                "This ranking supports a clinician's differential diagnosis; it is not a diagnosis. It uses the Human Phenotype Ontology "
                + "(Gargano MA et al., Nucleic Acids Res 2024;52(D1):D1333-46; https://hpo.jax.org), under its licence.")
    }
}
