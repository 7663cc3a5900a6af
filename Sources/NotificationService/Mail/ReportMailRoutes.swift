import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// "Email report to doctor":
/// - `PUT /v1/patients/{patientId}/doctor-contact`, `GET`, `DELETE`: the address of the patient's doctor;
/// - `POST /v1/patients/{patientId}/report-emails`: send the doctor a notice that the report for a period is waiting
///   (202: a job hands it to the operator's relay, with retries);
/// - `GET /v1/patients/{patientId}/report-emails` and `…/{emailId}`: each e-mail's delivery status.
///
/// Only the patient manages these. Without a relay configured (`SMTP_HOST`) sending answers 409; the address can
/// still be kept.
struct ReportMailRoutes: Sendable {
    let context: ServiceContext
    let settings: MailSettings?

    struct ContactBody: SchemaBody {
        static let schema: RequestSchema = .doctorContact
        let email: String
    }

    /// The period of the report; both ends default as `Period.reportPeriod` says.
    struct EmailBody: SchemaBody {
        static let schema: RequestSchema = .reportEmail
        let from: String?
        let to: String?
        /// The doctor's address when not the kept one.
        let email: String?
        let subject: String?
        let message: String?
        /// An outside share of the patient's (scoring-service): the e-mail links to its page.
        let shareId: UUID?
        let attachPdf: Bool?
    }

    func register(on routes: APIRoutes) {
        let contact = "v1/patients/:patientId/doctor-contact"
        routes.put(
            contact, access: .patientData(.manage), summary: "Keep the e-mail address of the patient's doctor, for sending reports",
            body: [ContactBody.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: ContactBody.self, context: requestContext)
            // The schema's pattern already refuses what `MailAddress` refuses; this keeps the two from drifting apart.
            guard let email = MailAddress(body.email) else {
                throw HTTPProblem(
                    status: .badRequest, error: "the request body is invalid",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["email"]), message: "must be an e-mail address (local@domain)")])
            }
            try await context.transaction(auditing: requestContext.origin, status: { 200 }) { handler in
                try await ReportMailStore(handler).setDoctorContact(patientID: patientID, email: email)
            }
            return try jsonResponse(ReportMailStore.DoctorContact(email: email.description, updatedAt: Date()))
        }
        routes.get(contact, access: .patientData(.manage), summary: "The e-mail address of the patient's doctor") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let found = try await ReportMailStore(context).doctorContact(patientID: patientID)
            else { throw HTTPProblem(status: .notFound, error: "no doctor's address kept") }
            return try jsonResponse(found)
        }
        routes.delete(contact, access: .patientData(.manage), summary: "Forget the doctor's e-mail address") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let removed = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
                try await ReportMailStore(handler).removeDoctorContact(patientID: patientID)
            }
            guard removed else { throw HTTPProblem(status: .notFound, error: "no doctor's address kept") }
            return Response(status: .noContent)
        }

        let emails = "v1/patients/:patientId/report-emails"
        routes.post(
            emails, access: .patientData(.manage),
            summary: "E-mail the patient's doctor that the report for a period is waiting (a link asking them to sign in; no clinical values)",
            body: [EmailBody.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: EmailBody.self, context: requestContext)
            // A deployment without a relay sends no e-mail by the operator's choice: a standing state, not an outage.
            guard settings != nil else {
                throw HTTPProblem(status: .conflict, error: "this deployment sends no e-mail: an operator sets SMTP_HOST to enable it")
            }
            let period = try Period.from(from: body.from, to: body.to).reportPeriod(now: Date())
            let wording = try Self.wording(body, attachmentsAllowed: settings?.attachment != nil)
            let queued = try await context.transaction(auditing: requestContext.origin, status: { $0 == nil ? 409 : 202 }) { handler in
                try await ReportMailStore(handler).queue(UUID.timeOrdered(), patientID: patientID, period: period, wording: wording)
            }
            guard let queued else {
                throw HTTPProblem(status: .conflict, error: "no doctor's address kept: PUT /v1/patients/{patientId}/doctor-contact first")
            }
            return try jsonResponse(queued, status: .accepted)
        }
        routes.get(emails, access: .patientData(.manage), summary: "The patient's report e-mails and their delivery status", paged: true) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await ReportMailStore(context).emails(
                    patientID: patientID, page: try PageRequest.from(request)))
        }
        routes.get("\(emails)/:emailId", access: .patientData(.manage), summary: "One report e-mail and its delivery status") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let id = requestContext.parameters.get("emailId").flatMap(UUID.init(uuidString:)),
                let email = try await ReportMailStore(context).email(id, patientID: patientID)
            else { throw HTTPProblem(status: .notFound, error: "no such report e-mail") }
            return try jsonResponse(email)
        }
    }

    /// What the patient wrote and chose, or a 400 or 422 naming each field that cannot be sent as it is.
    static func wording(_ body: EmailBody, attachmentsAllowed: Bool) throws -> ReportMailStore.Wording {
        var violations: [SchemaViolation] = []
        var recipient: MailAddress?
        if let email = body.email {
            recipient = MailAddress(email)
            if recipient == nil {
                violations.append(.init(pointer: JSONPointer(tokens: ["email"]), message: "must be an e-mail address (local@domain)"))
            }
        }
        // The schema refuses control characters; this keeps a line break out of the headers whatever the schema says.
        if let subject = body.subject, subject.contains(where: \.isNewline) {
            violations.append(.init(pointer: JSONPointer(tokens: ["subject"]), message: "must be one line"))
        }
        guard violations.isEmpty else { throw HTTPProblem.invalidBody(violations) }
        if body.attachPdf == true, !attachmentsAllowed {
            throw HTTPProblem(
                status: .unprocessableContent, error: "this deployment sends no report as an attachment",
                violations: [
                    SchemaViolation(pointer: JSONPointer(tokens: ["attachPdf"]), message: "needs MAIL_ATTACH_REPORT_PDF, which an operator sets")
                ])
        }
        return ReportMailStore.Wording(
            recipient: recipient, subject: body.subject, message: body.message, shareID: body.shareId, attachPdf: body.attachPdf ?? false)
    }
}
