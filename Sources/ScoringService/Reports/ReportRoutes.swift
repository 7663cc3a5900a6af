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

    /// What a report page may load: its own inline styles, and nothing else; nor may another site frame it.
    static let contentSecurityPolicy = ReportPage.contentSecurityPolicy + "; frame-ancestors 'none'"

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
            guard printer.browser != nil else {
                throw HTTPProblem(
                    status: .serviceUnavailable,
                    error: "this replica cannot print PDF: install chromium or set REPORT_PDF_BROWSER; the HTML report works")
            }
            let (html, language) = try await report(request, requestContext)
            var response = Self.answer(ByteBuffer(bytes: try await printer.print(html)), contentType: "application/pdf", language: language)
            response.headers[HTTPField.Name("Content-Disposition")!] = "inline; filename=\"report.pdf\""
            return response
        }
    }

    /// The report page the request asks for, and its language.
    private func report(_ request: Request, _ requestContext: CaretideRequestContext) async throws -> (html: String, language: String) {
        let patientID = try PatientID.fromPath(requestContext)
        let period = Self.reportPeriod(try Period.from(request), now: Date())
        let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
        let entries = try await ReportStore.entries(patientID: patientID, period: period, on: context.database.client, logger: context.logger)
        let report = PatientReport(patientID: patientID, period: period, entries: entries, texts: texts, generatedAt: Date())
        return (report.page.html, texts.language)
    }

    /// The period asked for; when no end is given, now; when no start, twelve months before the end.
    static func reportPeriod(_ asked: Period, now: Date) -> Period {
        let end = asked.end == Timestamp.plausibleRange.upperBound ? now : asked.end
        let start = asked.start == Timestamp.plausibleRange.lowerBound ? end.addingTimeInterval(-365 * 86_400) : asked.start
        return Period(start: min(start, end), end: end)
    }

    static func page(_ html: String, language: String) -> Response {
        var response = answer(ByteBuffer(string: html), contentType: "text/html; charset=utf-8", language: language)
        response.headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }

    /// A report, in either form: in the page's language and never cached (it holds the patient's values).
    static func answer(_ body: ByteBuffer, contentType: String, language: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentLanguage] = language
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
