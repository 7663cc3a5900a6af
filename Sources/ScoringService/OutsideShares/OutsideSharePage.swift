import CaretideCharts
import CaretideDomain
import CaretideRuntime
import HTTPTypes
import Hummingbird

/// The pages an outside viewer sees before the report: the form, and the messages when a link does not open. Like
/// the report, they run nothing, are never cached, indexed or framed, and send no referrer; unlike it, the form may
/// post to this service.
enum OutsideSharePage {
    enum Message {
        case gone, locked, throttled

        var status: HTTPResponse.Status {
            switch self {
            case .gone: .gone
            case .locked: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
            case .throttled: .tooManyRequests
            }
        }

        var key: String {
            switch self {
            case .gone: "outside.gone"
            case .locked: "outside.locked"
            case .throttled: "outside.throttled"
            }
        }
    }

    enum Problem {
        case name, wrong

        var key: String {
            switch self {
            case .name: "outside.problem.name"
            case .wrong: "outside.problem.wrong"
            }
        }
    }

    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func form(asksBirthDate: Bool, problem: Problem?, texts: TipTexts) -> Response {
        let field = { (name: String, key: String, type: String) in
            "<p><label>\(Markup.escape(texts.filled(key)))<br><input name=\"\(name)\" type=\"\(type)\" maxlength=\"\(FormField.maximumLength)\" required></label></p>"
        }
        var body = "<p>\(Markup.escape(texts.filled("outside.intro")))</p>"
        if let problem { body += "<p role=\"alert\"><strong>\(Markup.escape(texts.filled(problem.key)))</strong></p>" }
        body += "<form method=\"post\">" + field("name", "outside.name", "text") + field("code", "outside.code", "text")
        if asksBirthDate { body += field("birthDate", "outside.birthDate", "text") }
        body +=
            "<p><button name=\"format\" value=\"html\">\(Markup.escape(texts.filled("outside.open")))</button> "
            + "<button name=\"format\" value=\"pdf\">\(Markup.escape(texts.filled("outside.pdf")))</button></p></form>"
        return page(body, status: problem == .wrong ? .forbidden : problem == nil ? .ok : .badRequest, texts: texts)
    }

    static func message(_ message: Message, texts: TipTexts) -> Response {
        page("<p>\(Markup.escape(texts.filled(message.key)))</p>", status: message.status, texts: texts)
    }

    static func page(_ body: String, status: HTTPResponse.Status, texts: TipTexts) -> Response {
        let title = Markup.escape(texts.filled("outside.title"))
        let html = """
            <!DOCTYPE html><html lang="\(Markup.escape(texts.language))"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow">\
            <title>\(title)</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}\
            input{font-size:1rem;padding:.3rem;width:100%}button{font-size:1rem;margin-right:.5rem}</style></head>\
            <body><main><h1>\(title)</h1>\(body)</main></body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLanguage] = texts.language
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        var response = Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        `private`(&response)
        return response
    }

    /// What every page of an outside share carries: not stored, not indexed, no referrer, not sniffed.
    static func `private`(_ response: inout Response) {
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("X-Robots-Tag")!] = "noindex, nofollow"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
    }
}
