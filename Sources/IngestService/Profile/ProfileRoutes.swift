import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// The patient's profile (`PatientProfile`):
/// - `GET /v1/patients/{patientId}/profile`: the newest revision, with the age it gives today and an `ETag`
/// - `PUT /v1/patients/{patientId}/profile`: the profile as a whole (fields left out are cleared); `If-Match` with the
///   `ETag` read makes it refuse (412) when someone changed the profile in between
/// - `GET /v1/patients/{patientId}/profile/revisions`: every change, newest first, each with its source
/// Institutions write it through the results they already send (`ProfileRegistration`). A change of sex or date of
/// birth is announced as `patient-demographics.changed`, which carries those two fields alone.
struct ProfileRoutes: Sendable {
    let context: ServiceContext

    /// A revision as answered: the profile, the age it gives today, who changed it.
    struct Answer: Encodable, Sendable {
        let revision: Int
        let profile: PatientProfile
        /// Completed years today, in the profile's time zone (else UTC); absent without a date of birth.
        let age: Int?
        let source: ProfileStore.Source
        let changedAt: Date

        init(_ stored: ProfileStore.Revision, now: Date = Date()) {
            revision = stored.revision
            profile = stored.profile
            age = stored.profile.age(at: now)
            source = stored.source
            changedAt = stored.changedAt
        }
    }

    struct Written: Encodable, Sendable {
        /// changed (a new revision) or unchanged (the same profile again).
        let status: String
        let revision: Int
    }

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/profile"
        routes.get(path, access: .patientData(.read), summary: "The patient's profile (name, sex, date of birth, language, time zone), with its ETag")
        {
            _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let current = try await ProfileStore(context).current(patientID: patientID) else {
                throw HTTPProblem(status: .notFound, error: "the patient has no profile yet")
            }
            var response = try jsonResponse(Answer(current))
            response.headers[.eTag] = Self.etag(current.revision)
            response.headers[.cacheControl] = "private, no-cache"
            return response
        }
        routes.put(
            path, access: .patientData(.write),
            summary: "Set the patient's profile as a whole (If-Match: its ETag, to refuse a change made in between)",
            body: [PatientProfile.Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let expected = try Self.expectedRevision(request)
            let body = try await request.decode(as: PatientProfile.Body.self, context: requestContext)
            let profile = try PatientProfile.from(body, today: LocalDate(Date(), in: TimeZone(identifier: "UTC")!).addingDays(1))
            let identity = requestContext.identity
            let source = ProfileStore.Source(
                role: identity?.role.rawValue ?? "patient", subject: identity?.subject ?? patientID, institutionId: nil, format: "profile")
            let origin = requestContext.origin
            let written = try await context.transaction(auditing: origin, status: Self.status) { handler in
                try await ProfileRegistration.write(
                    profile, patientID: patientID, source: source, expected: expected, traceID: origin.traceID, handler: handler)
            }
            let (status, stored): (String, ProfileStore.Revision)
            switch written {
            case .changed(let revision, _): (status, stored) = ("changed", revision)
            case .unchanged(let revision): (status, stored) = ("unchanged", revision)
            case .stale(let current):
                throw HTTPProblem(
                    status: .preconditionFailed, error: "the profile changed since it was read (now revision \(current)): read it again",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["If-Match"]), message: "must be the ETag of the current profile")])
            }
            var response = try jsonResponse(
                Written(status: status, revision: stored.revision), status: HTTPResponse.Status(code: Self.status(written)))
            response.headers[.eTag] = Self.etag(stored.revision)
            return response
        }
        routes.get(
            "\(path)/revisions", access: .patientData(.read),
            summary: "Every change of the patient's profile, newest first, each with who made it and how",
            paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let page = try PageRequest.from(request)
            let before = try page.after.map { cursor in
                guard let revision = Int(cursor.id) else { throw PageRequest.badCursor }
                return revision
            }
            let rows = try await ProfileStore(context).revisions(
                patientID: patientID, before: before, limit: page.limit + 1)
            return try jsonResponse(
                Page(rows: rows, request: page, cursor: { .init(position: "r", id: String($0.revision)) }, item: { Answer($0) }))
        }
    }

    static func etag(_ revision: Int) -> String { "\"\(revision)\"" }

    /// `If-Match: "N"` as the revision N; `*` or none as no condition. Anything else is a 400.
    static func expectedRevision(_ request: Request) throws -> Int? {
        guard let text = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), text != "*" else { return nil }
        guard text.count >= 3, text.hasPrefix("\""), text.hasSuffix("\""), let revision = Int(text.dropFirst().dropLast()), revision >= 0 else {
            throw HTTPProblem(
                status: .badRequest, error: "the request headers are invalid",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["If-Match"]), message: "must be an ETag of this profile, e.g. \"3\"")])
        }
        return revision
    }

    static func status(_ written: ProfileStore.Written) -> Int {
        switch written {
        case .changed(let stored, _): stored.revision == 1 ? 201 : 200
        case .unchanged: 200
        case .stale: 412
        }
    }
}

extension PatientProfile {
    /// Completed years at `instant`, counted on the day it is in the profile's time zone (else UTC).
    func age(at instant: Date) -> Int? {
        guard let birthDate else { return nil }
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        return birthDate.completedYears(on: LocalDate(instant, in: zone))
    }
}
