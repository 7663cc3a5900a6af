import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import HTTPTypes
import Hummingbird

/// Linking an institution's patient to a Caretide patient (MyChart's activation codes; FHIR `Patient.identifier`):
/// - `PUT    /v1/institutions/{institutionId}/patients/{institutionPatientId}`: register the patient (name, sex, date of
///   birth) and get an activation code to hand them; again, to replace the details and issue a new code
/// - `GET    /v1/institutions/{institutionId}/patients/{institutionPatientId}`: the registration: linked or not, the
///   code's expiry, and the reports that wait for the link
/// - `DELETE /v1/institutions/{institutionId}/patients/{institutionPatientId}/link`: end the link
/// - `POST   /v1/patients/{patientId}/institution-links`: the patient redeems a code with their date of birth
/// - `GET    /v1/patients/{patientId}/institution-links`: the patient's links, with what each institution registered
/// - `DELETE /v1/patients/{patientId}/institution-links/{institutionId}`: the patient ends their links to an institution
/// Once linked, the institution's results under its id reach the patient through every door, and those that waited
/// are stored for them at once (`InstitutionResults`).
struct InstitutionPatientRoutes: Sendable {
    let records: RecordRoutes
    var context: ServiceContext { records.context }

    struct RegistrationBody: SchemaBody {
        static let schema: RequestSchema = .institutionPatient
        let name: PatientProfile.Body.Name
        let sex: ProfileSex
        let birthDate: String
        let codeValidDays: Int?
    }

    struct RedemptionBody: SchemaBody {
        static let schema: RequestSchema = .institutionLink
        let activationCode: String
        let birthDate: String
    }

    /// What the institution is told of its registration: never the Caretide patient's id.
    struct RegistrationAnswer: Encodable, Sendable {
        let institutionPatientId: String
        /// Shown once, when the registration is made or replaced: only its digest is kept.
        var activationCode: String?
        let codeExpiresAt: Date?
        let linked: Bool
        let linkedAt: Date?
        /// The exam ids of the reports that wait for the link, oldest first.
        let waitingExamIds: [String]
        /// The exam ids of the reports the linked patient said are not theirs: withdrawn from them, to be checked and
        /// sent again, under a new exam id, for the right patient.
        let disputedExamIds: [String]
    }

    /// What the patient is told of a link: what the institution registered, to confirm it is them.
    struct LinkAnswer: Encodable, Sendable {
        let institutionId: String
        let institutionPatientId: String
        let linkedAt: Date?
        let registered: Registered
        /// Reports that waited and were stored when the link was made (on redemption only).
        var deliveredReports: Int?

        struct Registered: Encodable, Sendable {
            let name: PersonName?
            let sex: ProfileSex
            let birthDate: String?
        }
    }

    static let refusal = HTTPProblem(
        status: .unprocessableContent, error: "the activation code and date of birth do not match a registration that can be linked",
        violations: [SchemaViolation(pointer: .root, message: "check the code and the date of birth, or ask the institution for a new code")])

    func register(on routes: APIRoutes) {
        routes.put(
            "v1/institutions/:institutionId/patients/:institutionPatientId", access: .institutionResults,
            summary: "Register one of the institution's patients under its own id and get an activation code to hand them",
            body: [RegistrationBody.schema], bodyLimit: 4 * 1024
        ) { request, requestContext in
            let key = try Self.key(requestContext)
            let body = try await request.decode(as: RegistrationBody.self, context: requestContext)
            let now = Date()
            let (name, birthDate, expiresAt) = try Self.registration(body, now: now)
            let code = ActivationCode.random()
            guard let digest = ActivationCode.digest(of: code.text) else { throw HTTPError(.internalServerError) }
            let created = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 201 : 200 }) { handler in
                try await InstitutionPatientStore(handler).register(
                    key, name: name, sex: body.sex, birthDate: birthDate, codeDigest: digest, codeExpiresAt: expiresAt, at: now)
            }
            var answer = try await answer(key)
            answer.activationCode = code.text
            return try jsonResponse(answer, status: created ? .created : .ok)
        }
        routes.get(
            "v1/institutions/:institutionId/patients/:institutionPatientId", access: .institutionResults,
            summary: "A registered patient: linked or not, the activation code's expiry, and the reports that wait for the link"
        ) { _, requestContext in
            try jsonResponse(try await answer(try Self.key(requestContext)))
        }
        routes.delete(
            "v1/institutions/:institutionId/patients/:institutionPatientId/link", access: .institutionResults,
            summary: "End the link between the institution's patient and their Caretide account; later results wait for a new link"
        ) { _, requestContext in
            let key = try Self.key(requestContext)
            let ended = try await context.transaction(auditing: requestContext.origin, status: { $0 > 0 ? 204 : 404 }) { handler in
                try await InstitutionPatientStore(handler).unlink(institutionID: key.institutionID, institutionPatientID: key.institutionPatientID)
            }
            guard ended > 0 else { throw HTTPProblem(status: .notFound, error: "no link to end") }
            return Response(status: .noContent)
        }
        routes.post(
            "v1/patients/:patientId/institution-links", access: .patientData(.manage),
            summary: "Redeem an institution's activation code with your date of birth: its results reach you from then on, and those sent before",
            body: [RedemptionBody.schema], bodyLimit: 4 * 1024
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: RedemptionBody.self, context: requestContext)
            return try await redeem(body, patientID: patientID, requestContext: requestContext)
        }
        routes.post(
            "v1/patients/:patientId/exam-results/:institutionId/:examId/not-mine", access: .patientData(.manage),
            summary: "This is not me: the report is withdrawn from you (its assessments and alerts too) and its institution is told",
            body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let recordID = try ExamResultRoutes.recordID(requestContext)
            return try jsonResponse(try await disown(recordID: recordID, patientID: patientID, origin: requestContext.origin))
        }
        routes.get(
            "v1/patients/:patientId/institution-links", access: .patientData(.manage),
            summary: "The institutions your account is linked to, with the name, sex and date of birth each registered"
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(try await InstitutionPatientStore(context).links(patientID: patientID).map(Self.linkAnswer))
        }
        routes.delete(
            "v1/patients/:patientId/institution-links/:institutionId", access: .patientData(.manage),
            summary: "End your links to an institution: its later results for you wait until you link again"
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let institutionID = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            let ended = try await context.transaction(auditing: requestContext.origin, status: { $0 > 0 ? 204 : 404 }) { handler in
                try await InstitutionPatientStore(handler).unlink(institutionID: institutionID, patientID: patientID)
            }
            guard ended > 0 else { throw HTTPProblem(status: .notFound, error: "no link to end") }
            return Response(status: .noContent)
        }
    }

    /// The redemption: the patient's recent failures first (429 past the limit), then the code's registration decided
    /// by `InstitutionLinking.redeem`. A failure is recorded even though the answer is a refusal. Lock order: the
    /// patient's change counter, the registration, then the records the waiting reports become.
    func redeem(_ body: RedemptionBody, patientID: String, requestContext: CaretideRequestContext) async throws -> Response {
        enum Outcome: Sendable {
            case linked(LinkAnswer, created: Bool)
            case refused
            case wait(until: Date)
        }
        let now = Date()
        let birthDate = LocalDate(body.birthDate)
        let digest = ActivationCode.digest(of: body.activationCode)
        let (records, traceID) = (records, requestContext.requestID)
        let outcome = try await context.transaction(
            auditing: requestContext.origin,
            status: {
                switch $0 {
                case .linked(_, let created): created ? 201 : 200
                case .refused: 422
                case .wait: 429
                }
            }
        ) { handler -> Outcome in
            // The patient's change counter, locked: a burst of attempts is decided one after another, each seeing the
            // failures before it, and an erased patient is refused (410).
            try await ChangeFeedStore(handler).takeChanges(patientID: patientID, count: 0)
            let store = InstitutionPatientStore(handler)
            let since = now.addingTimeInterval(-InstitutionLinking.failureWindow)
            if let until = InstitutionLinking.retryAfter(failures: try await store.failures(patientID: patientID, since: since), now: now) {
                return .wait(until: until)
            }
            var found: InstitutionPatientStore.Registration?
            if let digest { found = try await store.lockByCode(digest) }
            let decision =
                birthDate.map { InstitutionLinking.redeem(found?.registration, patientID: patientID, birthDate: $0, now: now) } ?? .refused
            switch decision {
            case .link:
                guard let found else { return .refused }
                try await store.link(found.key, patientID: patientID, at: now)
                let delivered = try await InstitutionResults.deliverWaiting(
                    found.key, to: patientID, records: records, handler: handler, traceID: traceID)
                guard let linked = try await store.registration(found.key) else { return .refused }
                var answer = Self.linkAnswer(linked)
                answer.deliveredReports = delivered
                return .linked(answer, created: true)
            case .alreadyLinked:
                guard let found else { return .refused }
                return .linked(Self.linkAnswer(found), created: false)
            case .wrongBirthDate:
                if let found { try await store.countWrongBirthDate(found.key) }
                try await store.recordFailure(patientID: patientID, at: now, forgetBefore: since)
                return .refused
            case .refused:
                try await store.recordFailure(patientID: patientID, at: now, forgetBefore: since)
                return .refused
            }
        }
        switch outcome {
        case .linked(let answer, let created): return try jsonResponse(answer, status: created ? .created : .ok)
        case .refused: throw Self.refusal
        case .wait(let until):
            let wait = min(max(until.timeIntervalSince(now), 1), InstitutionLinking.failureWindow).rounded(.up)
            // bounded: clamped to 1 second … the failure window (15 minutes) just above.
            let seconds = Int(wait)
            var problem = HTTPProblem(
                status: .tooManyRequests, error: "too many attempts to redeem an activation code: try again in \(seconds) seconds")
            problem.retryAfterSeconds = seconds
            throw problem
        }
    }

    struct Disowned: Encodable, Sendable {
        let institutionId: String
        let examId: String
        let status: WriteOutcome
    }

    /// "This is not me": the patient's report is deleted by the one writer of records, which announces it withdrawn and
    /// disputed (downstream, its assessments and alerts go, and notification-service tells the institution), and the
    /// institution reads the dispute on the registration it was sent under. A report the patient does not hold is a 404; saying it twice answers the same.
    func disown(recordID: String, patientID: String, origin: WriteOrigin) async throws -> Disowned {
        let exam = ExamResultRoutes.key(recordID)
        let definition = ExamResultRoutes.definition
        return try await context.transaction(auditing: origin, status: { _ in 200 }) { handler in
            // The patient's change number first (the lock order of every writer), then the record and what it was sent under.
            try await ChangeFeedStore(handler).takeChanges(patientID: patientID, count: 0)
            guard let stored = try await RecordStore(handler).lock([RecordStore.Key(kind: definition.kind, id: recordID)]).first,
                stored.patientID == patientID
            else { throw HTTPProblem(status: .notFound, error: "no such report") }
            let disputed = ExamResultEnteredInError(examID: exam.examID, institutionID: exam.institutionID, markedAt: Date(), disputedByPatient: true)
            let write = RecordWrite(
                definition: definition, change: .delete(announcing: disputed), patientID: patientID, recordID: recordID, traceID: origin.traceID)
            guard let result = try await RecordWriter.apply([write], handler: handler).first else { throw HTTPError(.internalServerError) }
            _ = try result.get()
            let sentFor = (try? JSONValueDecoder.decode(ExamResultRoutes.Report.self, from: stored.version.body))?.patientId ?? patientID
            try await InstitutionPatientStore(handler).recordDispute(
                InstitutionPatientStore.Key(institutionID: exam.institutionID, institutionPatientID: sentFor), examID: exam.examID, at: Date())
            return Disowned(institutionId: exam.institutionID, examId: exam.examID, status: .deleted)
        }
    }

    /// The registration's details as the request gives them, with what its schema cannot check: a real date of birth
    /// that is not in the future; and when the code stops working. Throws every failing field.
    static func registration(_ body: RegistrationBody, now: Date) throws(HTTPProblem) -> (PersonName?, LocalDate, Date) {
        var violations: [SchemaViolation] = []
        var birthDate: LocalDate?
        switch PatientProfile.birthDate(body.birthDate, today: LocalDate(now, in: TimeZone(identifier: "UTC")!)) {
        case .success(let date): birthDate = date
        case .failure(let violation): violations.append(violation)
        }
        let expiresAt = InstitutionLinking.codeExpiry(now: now, days: body.codeValidDays)
        if expiresAt == nil {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["codeValidDays"]), message: "must be 1 to 90"))
        }
        guard violations.isEmpty, let birthDate, let expiresAt else {
            throw HTTPProblem(status: .unprocessableContent, error: "the registration is invalid", violations: violations)
        }
        return (PersonName(family: body.name.family, given: body.name.given ?? []), birthDate, expiresAt)
    }

    private func answer(_ key: InstitutionPatientStore.Key) async throws -> RegistrationAnswer {
        let store = InstitutionPatientStore(context)
        guard let found = try await store.registration(key) else { throw HTTPProblem(status: .notFound, error: "no such registered patient") }
        let spent = found.registration.codeRedeemed || found.registration.codeFailures >= InstitutionLinking.birthDateTriesPerCode
        return RegistrationAnswer(
            institutionPatientId: key.institutionPatientID, activationCode: nil, codeExpiresAt: spent ? nil : found.registration.codeExpiresAt,
            linked: found.registration.linkedPatientID != nil, linkedAt: found.linkedAt, waitingExamIds: try await store.waiting(key),
            disputedExamIds: try await store.disputed(key))
    }

    static func linkAnswer(_ found: InstitutionPatientStore.Registration) -> LinkAnswer {
        LinkAnswer(
            institutionId: found.key.institutionID, institutionPatientId: found.key.institutionPatientID, linkedAt: found.linkedAt,
            registered: .init(name: found.name, sex: found.sex, birthDate: found.registration.birthDate?.description))
    }

    static func key(_ context: some RequestContext) throws -> InstitutionPatientStore.Key {
        InstitutionPatientStore.Key(
            institutionID: try PatientID.fromPath(context, parameter: "institutionId", label: "institution id"),
            institutionPatientID: try PatientID.fromPath(context, parameter: "institutionPatientId", label: "institution patient id"))
    }
}
