import CaretideCharts
import CaretideSchemas
import Foundation
import PhenotypeRanking

/// A ranking as a clinician files it with the patient's notes: a CSV file (RFC 4180) or a page laid out as the
/// patient reports are (`CaretideCharts.ReportPage`: escaped throughout, no script), each with the query, the
/// release, the method and every result with its explanation. Pure: a `diagnosis.ranked` answer in, text out.
enum RankingExport {
    static let similarity = "Phenomizer (Köhler et al. 2009): Resnik similarity, p-values from random queries of the same size"
    static let likelihoodRatio =
        "Likelihood ratio of the present and absent findings, weighed by how often each disease shows them (HPO annotation frequencies), "
        + "in the manner of LIRICAL (Robinson et al. 2020), times the evidence of the p-value of the Phenomizer's similarity "
        + "(Köhler et al. 2009; from random queries of the same size); equal pre-test probabilities"

    /// What ordered the ranking, as a sentence and as the `ordering` column's value.
    static func ordering(_ ranked: DiagnosisRanked) -> (method: String, order: String) {
        ranked.method == .likelihoodRatio
            ? (likelihoodRatio, "likelihood ratio × p-value factor") : (similarity, "\(RankingOrdering.standard)")
    }

    /// One row per result and finding (long form, so a spreadsheet can filter and sort): each present finding with its
    /// best similarity match and, in a ranking by likelihood ratio, its ratio; then each excluded finding with its
    /// ratio. Each row carries the release and the method, so a row copied elsewhere still says where it came from.
    static func csv(_ ranked: DiagnosisRanked) -> String {
        let header = [
            "rank", "disease_id", "disease_name", "pooled_with", "score", "p_value", "adjusted_p_value", "disease_log10_likelihood_ratio",
            "log10_p_value_factor",
            "posterior_probability",
            "finding", "query_term_id", "query_term_name", "matched_term_id", "matched_term_name", "common_ancestor_id", "common_ancestor_name",
            "information_content", "log10_likelihood_ratio", "read_at_term_id", "expected_share", "hpo_release", "ontology_version",
            "annotation_version", "scoring", "ordering",
        ]
        var lines = [header.map(field).joined(separator: ",")]
        let release = [
            "\(ranked.release.releaseID)", ranked.release.ontologyVersion ?? "", ranked.release.annotationVersion ?? "", ranked.scoring.rawValue,
            ordering(ranked).order,
        ]
        for result in ranked.results {
            let ratio = result.likelihoodRatio
            let disease = [
                "\(result.rank)", result.diseaseID, result.diseaseName, (result.pooledWith ?? []).joined(separator: " "), number(result.score),
                number(result.pValue), number(result.adjustedPValue),
                ratio.map { number($0.log10Ratio) } ?? "", ratio.map { number($0.log10PValueFactor) } ?? "",
                ratio.map { number($0.posteriorProbability) } ?? "",
            ]
            let findings = Dictionary((ratio?.findings ?? []).map { ($0.term.id, $0) }, uniquingKeysWith: { first, _ in first })
            func weighed(_ finding: FindingLikelihoodRatio?) -> [String] {
                guard let finding else { return ["", "", ""] }
                return [number(finding.log10Ratio), finding.readAt?.id ?? "", finding.share.map(number) ?? ""]
            }
            let matches = result.matches.isEmpty ? [nil] : result.matches.map(Optional.some)
            for match in matches {
                let explanation =
                    match.map {
                        [
                            "present", $0.queryTerm.id, $0.queryTerm.name, $0.diseaseTerm.id, $0.diseaseTerm.name, $0.commonAncestor.id,
                            $0.commonAncestor.name, number($0.informationContent),
                        ] + weighed(findings[$0.queryTerm.id])
                    } ?? Array(repeating: "", count: 11)
                lines.append((disease + explanation + release).map(field).joined(separator: ","))
            }
            for finding in ratio?.findings ?? [] where finding.excluded {
                let explanation = ["excluded", finding.term.id, finding.term.name, "", "", "", "", ""] + weighed(finding)
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
        let byRatio = ranked.method == .likelihoodRatio
        let results = ranked.results.map { result in
            [
                ReportPage.Cell("\(result.rank)"),
                ReportPage.Cell("\(result.diseaseName) (\(([result.diseaseID] + (result.pooledWith ?? [])).joined(separator: ", ")))"),
            ]
                + (byRatio
                    ? [
                        ReportPage.Cell(result.likelihoodRatio.map { number($0.log10Ratio) } ?? ""),
                        ReportPage.Cell(result.likelihoodRatio.map { number($0.log10PValueFactor) } ?? ""),
                        ReportPage.Cell(result.likelihoodRatio.map { number($0.posteriorProbability) } ?? ""),
                    ] : [])
                + [ReportPage.Cell(number(result.score)), ReportPage.Cell(number(result.pValue)), ReportPage.Cell(number(result.adjustedPValue))]
        }
        let (method, order) = ordering(ranked)
        var sections = [
            ReportPage.Section(
                heading: "Query",
                paragraphs: ["\(ranked.queryTerms.count) phenotypes present, \(ranked.excludedTerms.count) checked and absent."]
                    + ranked.warnings.map(\.message),
                tables: [ReportPage.Table(caption: "Phenotypes", header: ["", "HPO id", "Name"], rows: query)]),
            ReportPage.Section(
                heading: "Diseases",
                paragraphs: [
                    "\(method); \(ranked.scoring.rawValue) similarity over \(ranked.diseaseCount) diseases, ordered by \(order). "
                        + "Adjusted p: Benjamini–Hochberg over all diseases."
                ],
                tables: [
                    ReportPage.Table(
                        caption: "Ranked diseases",
                        header: ["Rank", "Disease"] + (byRatio ? ["log10 LR", "log10 p-value factor", "Post-test probability"] : []) + [
                            "Similarity", "p", "Adjusted p",
                        ],
                        rows: results)
                ]),
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
                tables: (result.likelihoodRatio.map { ratio in
                    [
                        ReportPage.Table(
                            caption: "Why \(result.diseaseID) ranks here: each finding's likelihood ratio (log10; above 0 speaks for the disease)",
                            header: ["Finding", "Read at the disease's", "Expected share", "log10 LR"],
                            rows: ratio.findings.map {
                                [
                                    ReportPage.Cell("\($0.excluded ? "absent" : "present"): \($0.term.name) (\($0.term.id))"),
                                    ReportPage.Cell($0.readAt.map { "\($0.name) (\($0.id))" } ?? "not annotated"),
                                    ReportPage.Cell($0.share.map(number) ?? ""), ReportPage.Cell(number($0.log10Ratio)),
                                ]
                            })
                    ]
                } ?? [])
                    + [
                        ReportPage.Table(
                            caption: "Each query phenotype's best similarity match in \(result.diseaseID), most informative first",
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
