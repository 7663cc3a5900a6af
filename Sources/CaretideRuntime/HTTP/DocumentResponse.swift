import CaretideCharts
public import HTTPTypes
public import Hummingbird

/// A document made from a patient's data (a report, a ranking's export) as it leaves: never cached, its type never
/// sniffed; a page runs nothing and cannot be framed (`ReportPage`'s policy); named when it is a file.
public enum DocumentResponse {
    /// How a file is offered (`Content-Disposition`, RFC 6266), under a name of letters, digits, `.` and `-`.
    public enum Disposition: Sendable {
        /// Shown in the browser (a PDF report), saved under the name.
        case inline(String)
        /// Downloaded (a CSV export).
        case attachment(String)
    }

    /// What a page may load: its own inline styles, and nothing else; nor may another site frame it.
    public static let contentSecurityPolicy = ReportPage.contentSecurityPolicy + "; frame-ancestors 'none'"

    /// - Parameters:
    ///   - language: `Content-Language`, when the document is in one.
    ///   - disposition: how a file is offered; none for a page.
    public static func make(_ body: ByteBuffer, contentType: String, language: String? = nil, disposition: Disposition? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if let language { headers[.contentLanguage] = language }
        if contentType.hasPrefix("text/html") { headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy }
        switch disposition {
        case .inline(let name): headers[HTTPField.Name("Content-Disposition")!] = "inline; filename=\"\(name)\""
        case .attachment(let name): headers[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"\(name)\""
        case nil: break
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
