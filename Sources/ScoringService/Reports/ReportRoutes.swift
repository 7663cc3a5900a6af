import CaretideCharts
import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO

/// `GET /v1/patients/{patientId}/report?from=&to=`: the patient report for a period (the last 12 months when none is
/// given) as one HTML page with inline SVG charts (`PatientReport`), in the language `Accept-Language` asks for;
/// `GET …/report.pdf` the same page printed to PDF (`PDFPrinter`). The
/// patient reads it, and a consultant whose grant is in force; every read is audited like any other read of the
/// patient's data. The page runs nothing: it is sent with a Content-Security-Policy that allows no script, no
/// connection and no frame, and is never cached.
struct ReportRoutes: Sendable {
    let context: ServiceContext
    let tips: TipCatalog
    let printer: PDFPrinter
    /// The key share links are signed with (`REPORT_SHARE_KEY`); without it shared links are refused with a 409.
    let shareKey: ShareKey?

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/report", access: .patientData(.read),
            summary: "The patient's report for a period as an HTML page with charts (the last 12 months by default)",
            query: Period.queryParameters, mediaType: "text/html"
        ) { request, requestContext in
            let (html, language) = try await report(request, requestContext)
            return Self.page(html, language: language)
        }
        routes.get(
            "v1/patients/:patientId/report.pdf", access: .patientData(.read),
            summary: "The patient's report for a period printed to PDF (the same page as the HTML report)", query: Period.queryParameters,
            mediaType: "application/pdf"
        ) { request, requestContext in
            let (html, language) = try await report(request, requestContext)
            return try await printer.response(html, language: language, name: "report.pdf", htmlRoute: "the HTML report")
        }
        routes.get(
            "v1/patients/:patientId/npi/:npiId/report", access: .patientData(.read),
            summary: "One NPI entry's own page: every detail of its date (inputs, index, group, survival, advice) and its group's curve",
            mediaType: "text/html"
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let npiID = try requestContext.uuidParameter("npiId", label: "NPI id").uuidString.lowercased()
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            guard let entry = try await ReportStore(context).entries(patientID: patientID, period: .always, npiID: npiID, texts: texts).first
            else { throw HTTPProblem(status: .notFound, error: "no such NPI entry") }
            return Self.page(PatientReport.npiPage(entry, patientID: patientID, texts: texts, generatedAt: Date()).html, language: texts.language)
        }
        routes.get(
            "v1/patients/:patientId/shared-reports/:shareId", access: .patientData(.read),
            summary: "The report a patient shared with this consultant, opened from the signed link in the consultant's inbox",
            query: Self.shareLinkParameters, mediaType: "text/html"
        ) { request, requestContext in
            let link = try sharedLink(request, requestContext)
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            let html = try await page(patientID: link.patientID, period: Period(start: link.from, end: link.to), texts: texts)
            return Self.page(html, language: texts.language)
        }
    }

    static let shareLinkParameters = [
        QueryParameter("consultant", "the consultant the report was shared with"),
        QueryParameter("from", "the report's first second (Unix time)"), QueryParameter("to", "the report's end (Unix time)"),
        QueryParameter("expires", "when the link stops opening (Unix time)"),
        QueryParameter("signature", "HMAC-SHA256 of the purpose and every field, base64url"),
    ]

    /// The link the request opens, once it is shown to be unaltered, in force and opened by the consultant it names.
    /// The route's access rule has already required a grant in force from the patient, so a revoked grant closes
    /// every link it was shared through. A refusal says which check failed, never what the signature should be.
    private func sharedLink(_ request: Request, _ requestContext: CaretideRequestContext) throws -> ReportShareLink {
        // A deployment without a key shares nothing by the operator's choice: a standing state, not an outage.
        guard let shareKey else {
            throw HTTPProblem(status: .conflict, error: "this deployment does not share reports: an operator sets \(ShareKey.variable)")
        }
        let patientID = try PatientID.fromPath(requestContext)
        guard let shareID = requestContext.parameters.get("shareId").flatMap(UUID.init(uuidString:)) else {
            throw HTTPProblem(status: .notFound, error: "no such shared report")
        }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        guard let link = ReportShareLink.verified(patientID: patientID, shareID: shareID, query: query, key: shareKey) else {
            throw HTTPProblem(status: .forbidden, error: "the link is altered or incomplete: open it as it arrived in your inbox")
        }
        guard link.expiresAt > Date() else {
            throw HTTPProblem(status: .gone, error: "the link has expired: ask the patient to share the report again")
        }
        guard requestContext.identity?.role == .consultant, requestContext.identity?.subject == link.consultantID else {
            throw HTTPProblem(status: .forbidden, error: "the report was shared with another consultant")
        }
        return link
    }

    /// The report page the request asks for, and its language.
    private func report(_ request: Request, _ requestContext: CaretideRequestContext) async throws -> (html: String, language: String) {
        let patientID = try PatientID.fromPath(requestContext)
        let period = try Period.from(request).reportPeriod(now: Date())
        let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
        return (try await page(patientID: patientID, period: period, texts: texts), texts.language)
    }

    /// The report page of a patient's period, with the parts `shown` (all of them unless a share chose some).
    func page(patientID: String, period: Period, texts: TipTexts, shown: Set<ReportSection> = Set(ReportSection.allCases)) async throws
        -> String
    {
        let entries = try await ReportStore(context).entries(patientID: patientID, period: period)
        var report = PatientReport(patientID: patientID, period: period, entries: entries, texts: texts, generatedAt: Date())
        report.shown = shown
        report.environment = try await ReportEnvironmentStore(context).followedAreas(patientID: patientID, period: period)
        report.careFlags = try await ReportStore(context).careFlags(patientID: patientID, period: period)
        report.photos = try await ReportStore(context).photos(patientID: patientID, period: period)
        report.diet = try await dietDays(patientID: patientID, period: period, texts: texts)
        return report.page.html
    }

    /// The period's days with meals, by their UTC dates, analysed as the diet routes analyse them.
    private func dietDays(patientID: String, period: Period, texts: TipTexts) async throws -> [NutritionRoutes.Day] {
        let utc = TimeZone(identifier: "UTC")!
        let (first, last) = (LocalDate(period.start, in: utc), LocalDate(period.end.addingTimeInterval(-1), in: utc))
        let entries = try await NutritionStore(context).entries(patientID: patientID, from: first, through: last)
        guard !entries.isEmpty else { return [] }
        let person = try await DemographicsStore(context).demographics(patientID: patientID)
        return Dictionary(grouping: entries, by: \.day).sorted { $0.key < $1.key }.map { day, meals in
            NutritionRoutes.day(day, entries: meals, sex: person.sex, age: LocalDate(day).flatMap(person.age(on:)), texts: texts, withMeals: false)
        }
    }

    static func page(_ html: String, language: String) -> Response {
        DocumentResponse.make(ByteBuffer(string: html), contentType: "text/html; charset=utf-8", language: language)
    }
}
