import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Appointments (`Appointments`):
/// - `PUT /v1/institutions/{institutionId}/slots/{slotId}`: the institution publishes or changes a slot (409 once booked);
/// - `GET /v1/slots?institution=&service=&from=`: free slots, soonest first;
/// - `POST /v1/patients/{patientId}/appointments`: the patient books a slot (409 when taken);
/// - `GET /v1/patients/{patientId}/appointments`, `DELETE …/{appointmentId}`: the patient's appointments; cancel one;
/// - `GET /v1/institutions/{institutionId}/appointments`, `POST …/{appointmentId}/cancel`: the institution's side.
/// To change an appointment, cancel it and book another slot.
struct AppointmentRoutes: Sendable {
    let context: ServiceContext

    struct SlotBody: SchemaBody {
        static let schema: RequestSchema = .slot
        let service: String
        let startsAt: Date
        let endsAt: Date
        let location: String?
    }

    struct BookingBody: SchemaBody {
        static let schema: RequestSchema = .appointment
        let institutionId: String
        let slotId: String
    }

    func register(on routes: APIRoutes) {
        routes.put(
            "v1/institutions/:institutionId/slots/:slotId", access: .institutionResults, summary: "Publish or change a bookable appointment slot",
            body: [SlotBody.schema]
        ) { request, requestContext in
            let institution = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            let slotID = try PatientID.fromPath(requestContext, parameter: "slotId", label: "slot id")
            let body = try await request.decode(as: SlotBody.self, context: requestContext)
            let slot = try Self.slot(body, institutionID: institution, slotID: slotID)
            let outcome = try await context.transaction(auditing: requestContext.origin, status: { $0 == nil ? 409 : 200 }) { handler in
                try await Appointments(handler).putSlot(slot)
            }
            guard let outcome else { throw HTTPProblem(status: .conflict, error: "the slot is booked: cancel the appointment before changing it") }
            return try jsonResponse(slot, status: outcome == "published" ? .created : .ok)
        }
        routes.get(
            "v1/slots", access: .referenceData, summary: "Free appointment slots, soonest first",
            query: [
                .init("institution", "only this institution's"), .init("service", "only this service's"),
                .init("from", "from this instant on (default: now)"),
            ],
            paged: true
        ) { request, _ in
            let query = request.uri.queryParameters
            let from = query.get("from").flatMap { Timestamp.parse(String($0)) } ?? Date()
            // PostgreSQL text holds no U+0000: such a filter is a bad request, not a server error (found by fuzzing).
            for name in ["institution", "service"] where query.get(name)?.contains("\u{0}") == true {
                throw HTTPProblem(
                    status: .badRequest, error: "the query is invalid",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: [name]), message: "must not contain U+0000")])
            }
            return try jsonResponse(
                try await Appointments(context).freeSlots(
                    institution: query.get("institution").map { String($0) }, service: query.get("service").map { String($0) }, from: from,
                    page: try PageRequest.from(request)))
        }
        routes.post(
            "v1/patients/:patientId/appointments", access: .patientData(.write), summary: "Book an appointment slot", body: [BookingBody.schema]
        ) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: BookingBody.self, context: requestContext)
            let (institution, slotID) = (body.institutionId, body.slotId)
            let id = UUID.timeOrdered()
            let now = Date()
            let booking = try await context.transaction(
                auditing: requestContext.origin,
                status: { (booking: Appointments.Booking) in
                    if case .booked = booking { 201 } else { 409 }
                }
            ) { handler in
                let appointments = Appointments(handler)
                let booking = try await appointments.book(id, patientID: patientID, institutionID: institution, slotID: slotID, now: now)
                if case .booked(let appointment) = booking {
                    try await appointments.setReminders(appointment, now: now)
                    try await LesionFollowUpStore(handler).appointmentBooked(id, patientID: patientID, startsAt: appointment.slot.startsAt)
                    try await NotificationDelivery.deliver(
                        Appointments.notices(appointment, .booked, source: id, now: now), traceID: requestContext.requestID,
                        context: handler)
                }
                return booking
            }
            switch booking {
            case .booked(let appointment): return try jsonResponse(appointment, status: .created)
            case .noSuchSlot: throw HTTPProblem(status: .notFound, error: "no such slot")
            case .past: throw HTTPProblem(status: .conflict, error: "the slot has already begun")
            case .taken: throw HTTPProblem(status: .conflict, error: "the slot is already booked")
            }
        }
        routes.get(
            "v1/patients/:patientId/appointments", access: .patientData(.read), summary: "The patient's appointments, soonest first", paged: true
        ) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await Appointments(context).list(
                    patientID: patientID, page: try PageRequest.from(request)))
        }
        routes.get(
            "v1/institutions/:institutionId/appointments", access: .institutionResults, summary: "The institution's appointments, soonest first",
            paged: true
        ) { request, requestContext in
            let institution = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            return try jsonResponse(
                try await Appointments(context).list(
                    institutionID: institution, page: try PageRequest.from(request)))
        }
        routes.delete("v1/patients/:patientId/appointments/:appointmentId", access: .patientData(.write), summary: "Cancel an appointment") {
            _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            try await cancel(
                try requestContext.uuidParameter("appointmentId", label: "appointment id"), patientID: patientID, by: "patient", requestContext)
            return Response(status: .noContent)
        }
        routes.post(
            "v1/institutions/:institutionId/appointments/:appointmentId/cancel", access: .institutionResults,
            summary: "The institution cancels an appointment",
            body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let institution = try PatientID.fromPath(requestContext, parameter: "institutionId", label: "institution id")
            try await cancel(
                try requestContext.uuidParameter("appointmentId", label: "appointment id"), institutionID: institution, by: "institution",
                requestContext)
            return Response(status: .noContent)
        }
    }

    /// The slot a request publishes, or a 400 on `endsAt` when it does not end after it starts (an empty or backward
    /// slot could never hold an appointment).
    static func slot(_ body: SlotBody, institutionID: String, slotID: String) throws -> Appointments.Slot {
        guard body.endsAt > body.startsAt else {
            throw HTTPProblem.invalidBody([SchemaViolation(pointer: JSONPointer(tokens: ["endsAt"]), message: "must be after startsAt")])
        }
        return Appointments.Slot(
            institutionId: institutionID, slotId: slotID, service: body.service, startsAt: body.startsAt, endsAt: body.endsAt,
            location: body.location)
    }

    private func cancel(_ id: UUID, patientID: String? = nil, institutionID: String? = nil, by: String, _ requestContext: CaretideRequestContext)
        async throws
    {
        let now = Date()
        let cancelled = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
            let appointments = Appointments(handler)
            guard let appointment = try await appointments.cancel(id, patientID: patientID, institutionID: institutionID, by: by) else {
                return false
            }
            try await appointments.cancelReminders(appointment)
            try await LesionFollowUpStore(handler).appointmentCancelled(id)
            try await NotificationDelivery.deliver(
                Appointments.notices(
                    appointment, .cancelled, source: .named("appointment/\(id.uuidString.lowercased())/cancelled"), now: now),
                traceID: requestContext.requestID, context: handler)
            return true
        }
        guard cancelled else { throw HTTPProblem(status: .notFound, error: "no such appointment") }
    }
}
