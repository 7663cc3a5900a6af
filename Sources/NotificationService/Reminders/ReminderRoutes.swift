import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// A patient's reminders (`ReminderSchedule`, fired by `ReminderScheduler`):
/// - `POST /v1/patients/{patientId}/reminders`: a reminder at a local time in the patient's IANA time zone; an
///   impossible date or an unknown time zone is a 400 naming the field;
/// - `GET /v1/patients/{patientId}/reminders`: the standing ones (the patient's own and those a rule made), each
///   with when it is next due;
/// - `DELETE /v1/patients/{patientId}/reminders/{reminderId}`: cancelled, no further occurrence fires;
/// - `POST …/reminders/{reminderId}/pause` and `…/resume`: nothing fires while paused; resuming waits for the next
///   occurrence from then on (those that fell while paused are skipped, not fired late).
struct ReminderRoutes: Sendable {
    let context: ServiceContext

    /// Dates and times are kept as the patient wrote them: the calendar reads them in `schedule`, naming each it refuses.
    struct Body: SchemaBody {
        static let schema: RequestSchema = .reminder
        let reminderId: UUID?
        let topic: String
        let note: String?
        let repeats: ReminderRepeat
        let startsOn: String?
        let dates: [String]?
        let at: String
        let timeZone: String
    }

    struct Created: Encodable, Sendable {
        let reminderId: UUID
        let status: String
        /// The next occurrences (up to three), to show the patient what they set.
        let next: [Date]
    }

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/reminders"
        routes.post(path, access: .patientData(.write), summary: "Set a reminder at a local time in the patient's time zone", body: [Body.schema]) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            let now = Date()
            let schedule = try Self.schedule(body, now: now)
            let reminder = ReminderStore.Reminder(
                id: body.reminderId ?? UUID.timeOrdered(), patientID: patientID, topic: body.topic, note: body.note, schedule: schedule,
                origin: "patient")
            let created = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 201 : 200 }) { handler in
                try await ReminderStore(handler).insert(reminder, now: now)
            }
            var upcoming: [Date] = []
            var from = now
            while upcoming.count < 3, let next = schedule.next(atOrAfter: from) {
                upcoming.append(next.at)
                from = next.at.addingTimeInterval(1)
            }
            return try jsonResponse(
                Created(reminderId: reminder.id, status: created ? "created" : "duplicate", next: upcoming), status: created ? .created : .ok)
        }
        routes.get(
            path, access: .patientData(.read), summary: "The patient's standing reminders, oldest first, each with when it is next due", paged: true
        ) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await ReminderStore(context).standing(
                    patientID: patientID, page: try PageRequest.from(request)))
        }
        routes.delete("\(path)/:reminderId", access: .patientData(.write), summary: "Cancel a reminder") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("reminderId", label: "reminder id")
            let cancelled = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
                try await ReminderStore(handler).cancel(id, patientID: patientID)
            }
            guard cancelled else { throw HTTPProblem(status: .notFound, error: "no such reminder") }
            return Response(status: .noContent)
        }
        for (action, summary) in [
            ("pause", "Pause a reminder: nothing fires until it is resumed"),
            ("resume", "Resume a paused reminder from its next occurrence (those that fell while paused are skipped)"),
        ] {
            routes.post(
                "\(path)/:reminderId/\(action)", access: .patientData(.write), summary: summary, body: [], bodyLimit: APIRoutes.noBody
            ) { _, requestContext in
                let patientID = try PatientID.fromPath(requestContext)
                let id = try requestContext.uuidParameter("reminderId", label: "reminder id")
                let state = try await context.transaction(auditing: requestContext.origin, status: { $0 == nil ? 404 : 200 }) { handler in
                    let store = ReminderStore(handler)
                    return action == "pause"
                        ? try await store.pause(id, patientID: patientID) : try await store.resume(id, patientID: patientID, now: Date())
                }
                guard let state else { throw HTTPProblem(status: .notFound, error: "no such reminder") }
                return try jsonResponse(state)
            }
        }
    }

    /// The schedule of a request the schema accepted, or a 400 naming each field the calendar refuses, and each date
    /// of a `once` or `onDates` reminder whose time has passed at `now` (it could never fire).
    static func schedule(_ body: Body, now: Date) throws -> ReminderSchedule {
        var violations: [SchemaViolation] = []
        let repeats = body.repeats
        let zone = TimeZone(identifier: body.timeZone)
        if zone == nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["timeZone"]), message: "must be an IANA time zone, e.g. Europe/Lisbon"))
        }
        let dates = (body.dates ?? []).compactMap(LocalDate.init)
        let startsOn = body.startsOn.flatMap(LocalDate.init) ?? dates.min()
        if repeats == .onDates, dates.isEmpty {
            violations.append(.init(pointer: JSONPointer(tokens: ["dates"]), message: "must list the dates for onDates"))
        } else if repeats != .onDates, body.startsOn == nil {
            violations.append(.init(pointer: JSONPointer(tokens: ["startsOn"]), message: "must give the first date"))
        }
        guard violations.isEmpty, let zone, let startsOn, let at = LocalTime(body.at) else {
            throw HTTPProblem.invalidBody(violations)
        }
        let schedule = ReminderSchedule(repeats: repeats, startsOn: startsOn, at: at, timeZone: zone, dates: dates)
        let past = "is in the past at this time of day: a reminder then would never fire"
        if repeats == .once, ReminderSchedule.instant(of: startsOn, at: at, in: zone) < now {
            violations.append(.init(pointer: JSONPointer(tokens: ["startsOn"]), message: past))
        }
        if repeats == .onDates {
            for (index, element) in (body.dates ?? []).enumerated() {
                guard let date = LocalDate(element), ReminderSchedule.instant(of: date, at: at, in: zone) < now else {
                    continue
                }
                violations.append(.init(pointer: JSONPointer(tokens: ["dates", String(index)]), message: past))
            }
        }
        guard violations.isEmpty else { throw HTTPProblem.invalidBody(violations) }
        return schedule
    }
}
