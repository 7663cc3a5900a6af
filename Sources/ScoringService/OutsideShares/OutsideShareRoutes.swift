import CaretideCharts
import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import HTTPTypes
import Hummingbird

/// A patient's report shared with a doctor outside Caretide (MyChart's "Share Everywhere"):
/// - `POST /v1/patients/{patientId}/outside-shares`: the patient chooses the period and the parts; the answer holds
///   the link and an access code, shown once, that the patient gives the doctor apart from the link (read out, or
///   sent by another way); with `askBirthDate`, opening also takes the patient's date of birth;
/// - `GET …/outside-shares`, `DELETE …/{shareId}`, `GET …/{shareId}/openings`: the patient's shares with whether and
///   when each was opened, revocation at once, and every attempt to open one (time, the name given, the address);
/// - `GET /v1/outside-shares/{shareId}` and `POST` of its form, without a token: a page asking the viewer's name and
///   the code, then the report (HTML, or PDF) read-only. Five wrong answers lock the share; twenty from one address in
///   15 minutes are refused for a while. A share expires (14 days by default, at most 90). Nothing in the link alone
///   opens the report.
struct OutsideShareRoutes: Sendable {
    let context: ServiceContext
    let tips: TipCatalog
    let printer: PDFPrinter
    let reports: ReportRoutes

    struct Body: SchemaBody {
        static let schema: RequestSchema = .outsideShare
        let from: String?
        let to: String?
        let sections: [ReportSection]?
        let expiresInDays: Int?
        let askBirthDate: Bool?
    }

    struct Created: Encodable, Sendable {
        let shareId: UUID
        /// Shown once: only its salted digest is kept.
        let accessCode: String
        /// The page the doctor opens (a path on this service; the e-mail puts the deployment's address before it).
        let link: String
        let from: Date
        let to: Date
        let sections: [ReportSection]
        let asksBirthDate: Bool
        let expiresAt: Date
    }

    static let defaultLifetimeDays = 14

    /// The page an outside viewer opens, without a token.
    static let page = "v1/outside-shares/:shareId"

    /// The status each attempt is answered with, as the page answers it and the access trail records it.
    static func status(of attempt: OutsideShareStore.Attempt) -> HTTPResponse.Status {
        switch attempt {
        case .opened: .ok
        case .refused(locked: false): .forbidden
        case .refused(locked: true), .locked: OutsideSharePage.Message.locked.status
        case .throttled: OutsideSharePage.Message.throttled.status
        case .gone: OutsideSharePage.Message.gone.status
        }
    }

    static let form = [
        FormField("name", "the viewer's name, recorded in the patient's list of openings"),
        FormField("code", "the access code the patient gave"), FormField("birthDate", "the patient's date of birth (YYYY-MM-DD), when asked"),
        FormField("format", "html (the default) or pdf"),
    ]

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/outside-shares"
        routes.post(
            path, access: .patientData(.manage),
            summary: "Share the report for a period with a doctor outside Caretide: a link and an access code, opened without an account",
            body: [Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            let now = Date()
            let period = try Period.from(from: body.from, to: body.to).reportPeriod(now: now)
            let sections = body.sections ?? ReportSection.allCases
            let expiresAt = Self.expiry(now: now, days: body.expiresInDays)
            let (id, code, asksBirthDate) = (UUID.timeOrdered(), OutsideShareCode.random(), body.askBirthDate ?? false)
            try await context.transaction(auditing: requestContext.origin, status: { 201 }) { handler in
                if asksBirthDate, try await DemographicsStore(handler).demographics(patientID: patientID).birthDate == nil {
                    throw HTTPProblem(
                        status: .unprocessableContent, error: "the date of birth cannot be asked: the patient's profile has none",
                        violations: [SchemaViolation(pointer: JSONPointer(tokens: ["askBirthDate"]), message: "needs a date of birth in the profile")]
                    )
                }
                try await OutsideShareStore(handler).create(
                    id, patientID: patientID, period: period, sections: sections, code: code, asksBirthDate: asksBirthDate, now: now,
                    expiresAt: expiresAt)
            }
            return try jsonResponse(
                Created(
                    shareId: id, accessCode: code.text, link: "/v1/outside-shares/\(id.uuidString.lowercased())", from: period.start,
                    to: period.end, sections: sections, asksBirthDate: asksBirthDate, expiresAt: expiresAt), status: .created)
        }
        routes.get(path, access: .patientData(.manage), summary: "The patient's outside shares: status, expiry, and whether and when opened") {
            _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(["items": try await OutsideShareStore(context).list(patientID: patientID, now: Date())])
        }
        routes.delete("\(path)/:shareId", access: .patientData(.manage), summary: "Revoke an outside share at once") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("shareId", label: "share id")
            let revoked = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
                try await OutsideShareStore(handler).revoke(id, patientID: patientID, now: Date())
            }
            guard revoked else { throw HTTPProblem(status: .notFound, error: "no such share") }
            return Response(status: .noContent)
        }
        routes.get(
            "\(path)/:shareId/openings", access: .patientData(.manage),
            summary: "Every attempt to open an outside share: when, the name given, the address, and whether it opened"
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("shareId", label: "share id")
            guard let openings = try await OutsideShareStore(context).openings(id, patientID: patientID) else {
                throw HTTPProblem(status: .notFound, error: "no such share")
            }
            return try jsonResponse(["items": openings])
        }

        let page = Self.page
        routes.get(
            page, access: .outsideViewer, summary: "The page an outside doctor opens: it asks their name and the access code", mediaType: "text/html"
        ) { request, requestContext in
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            guard let id = Self.shareID(requestContext), let (share, locked) = try await OutsideShareStore(context).openable(id, now: Date()) else {
                return OutsideSharePage.message(.gone, texts: texts)
            }
            guard !locked else { return OutsideSharePage.message(.locked, texts: texts) }
            return OutsideSharePage.form(asksBirthDate: share.asksBirthDate, problem: nil, texts: texts)
        }
        routes.post(
            page, access: .outsideViewer, summary: "Open an outside share: the viewer's name and the access code (a form), answered with the report",
            form: Self.form, mediaType: "text/html"
        ) { request, requestContext in
            try await open(request, requestContext)
        }
    }

    /// When a share made at `now` stops opening: `days` whole days later (the schema allows 1 to 90), or
    /// `defaultLifetimeDays` when the patient did not say.
    static func expiry(now: Date, days: Int?) -> Date {
        now.addingTimeInterval(TimeInterval(days ?? defaultLifetimeDays) * 86_400)
    }

    /// Whether the date of birth a viewer typed is the patient's. A profile without one matches nothing, not even an
    /// empty field (which would otherwise compare nil with nil).
    static func birthDateMatches(_ typed: String, birthDate: LocalDate?) -> Bool {
        birthDate != nil && LocalDate(typed.trimmingCharacters(in: .whitespaces)) == birthDate
    }

    static func shareID(_ requestContext: CaretideRequestContext) -> UUID? {
        requestContext.parameters.get("shareId").flatMap(UUID.init(uuidString:))
    }

    private func open(_ request: Request, _ requestContext: CaretideRequestContext) async throws -> Response {
        let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
        guard let id = Self.shareID(requestContext) else { return OutsideSharePage.message(.gone, texts: texts) }
        let bytes = try await request.body.collect(upTo: requestContext.maxUploadSize)
        guard let fields = FormBody(String(buffer: bytes)), let name = fields["name"], !name.isEmpty else {
            let asks = try await OutsideShareStore(context).openable(id, now: Date())?.share.asksBirthDate ?? false
            return OutsideSharePage.form(asksBirthDate: asks, problem: .name, texts: texts)
        }
        let typed = (code: fields["code"] ?? "", birthDate: fields["birthDate"] ?? "")
        let now = Date()
        let requestID = requestContext.requestID
        let attempt = try await context.transaction { handler in
            let (attempt, recorded) = try await OutsideShareStore(handler).attempt(
                id, viewerName: name, address: requestContext.remoteAddress ?? "unknown", now: now
            ) { salt, digest, patientID, asksBirthDate in
                guard OutsideShareCode.matches(typed.code, digest: digest, salt: salt) else { return false }
                guard asksBirthDate else { return true }
                let birthDate = try await DemographicsStore(handler).demographics(patientID: patientID).birthDate
                return Self.birthDateMatches(typed.birthDate, birthDate: birthDate)
            }
            // Each recorded attempt is in the patient's access log too, with the answer the viewer gets.
            if let recorded {
                try await handler.recordOutsideViewerAttempt(
                    recorded.openingID, shareID: id, patientID: recorded.patientID, method: .post, route: "/\(Self.page)",
                    opened: attempt.opens, status: Self.status(of: attempt).code, requestID: requestID)
            }
            return attempt
        }
        switch attempt {
        case .gone: return OutsideSharePage.message(.gone, texts: texts)
        case .locked, .refused(locked: true): return OutsideSharePage.message(.locked, texts: texts)
        case .throttled: return OutsideSharePage.message(.throttled, texts: texts)
        case .refused(locked: false):
            let asks = try await OutsideShareStore(context).openable(id, now: now)?.share.asksBirthDate ?? false
            return OutsideSharePage.form(asksBirthDate: asks, problem: .wrong, texts: texts)
        case .opened(let share):
            let html = try await reports.page(patientID: share.patientID, period: share.period, texts: texts, shown: Set(share.sections))
            var response =
                fields["format"] == "pdf"
                ? try await printer.response(html, language: texts.language, name: "report.pdf", htmlRoute: "the HTML report")
                : ReportRoutes.page(html, language: texts.language)
            OutsideSharePage.private(&response)
            return response
        }
    }
}

/// A browser's form body (`application/x-www-form-urlencoded`, WHATWG URL §5): each field once, every value at most
/// `FormField.maximumLength` characters; nil for anything else.
struct FormBody {
    private var fields: [String: String] = [:]

    init?(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decoded(parts[0]), let value = Self.decoded(parts.count > 1 ? parts[1] : ""),
                value.count <= FormField.maximumLength, fields[name] == nil
            else { return nil }
            fields[name] = value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    subscript(_ name: String) -> String? { fields[name] }

    static func decoded(_ part: Substring) -> String? {
        let text = part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        // No control characters: a name goes into the patient's list as it was typed.
        guard let text, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return text
    }
}
