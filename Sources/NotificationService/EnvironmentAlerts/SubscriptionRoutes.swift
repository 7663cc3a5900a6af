import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// A patient's UV and air-quality alert subscriptions, one per registered area:
/// - `PUT /v1/patients/{patientId}/environment-subscriptions/{areaCode}`: subscribe, or replace the subscription
///   (404 for an area not registered);
/// - `GET /v1/patients/{patientId}/environment-subscriptions`: the subscriptions, by area, with the thresholds in force;
/// - `DELETE /v1/patients/{patientId}/environment-subscriptions/{areaCode}`: unsubscribe.
///
/// Each change is announced as `environment-subscription.changed`, for the patient's report.
struct SubscriptionRoutes: Sendable {
    let context: ServiceContext

    struct Body: SchemaBody {
        static let schema: RequestSchema = .environmentSubscription
        let uvIndex: Bool?
        let airQuality: Bool?
        let uvIndexThreshold: Double?
        let aqiThreshold: Int?
        let fitzpatrickSkinType: Int?
        let conditions: [String]?
    }

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/environment-subscriptions"
        routes.put(
            "\(path)/:areaCode", access: .patientData(.write),
            summary: "Subscribe to UV and air-quality alerts for a registered area, with the patient's thresholds", body: [Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let areaCode = try PatientID.fromPath(requestContext, parameter: "areaCode", label: "area code")
            let body = try await request.decode(as: Body.self, context: requestContext)
            let subscription = EnvironmentStore.subscription(
                areaCode: areaCode, uvIndex: body.uvIndex ?? true, airQuality: body.airQuality ?? true, uvIndexThreshold: body.uvIndexThreshold,
                aqiThreshold: body.aqiThreshold, fitzpatrickSkinType: body.fitzpatrickSkinType, conditions: body.conditions ?? [], updatedAt: Date())
            let traceID = requestContext.requestID
            let subscribed = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 200 : 404 }) { handler in
                guard try await EnvironmentStore(handler).subscribe(patientID: patientID, subscription) else { return false }
                try await Self.announce(areaCode: areaCode, subscribed: true, patientID: patientID, traceID: traceID, handler: handler)
                return true
            }
            guard subscribed else { throw HTTPProblem(status: .notFound, error: "no such area: an operator registers areas first") }
            return try jsonResponse(subscription)
        }
        routes.get(path, access: .patientData(.read), summary: "The patient's UV and air-quality alert subscriptions, by area", paged: true) {
            request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await EnvironmentStore(context).subscriptions(
                    patientID: patientID, page: try PageRequest.from(request)))
        }
        routes.delete("\(path)/:areaCode", access: .patientData(.write), summary: "Unsubscribe from an area's alerts") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let areaCode = try PatientID.fromPath(requestContext, parameter: "areaCode", label: "area code")
            let traceID = requestContext.requestID
            let removed = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 204 : 404 }) { handler in
                guard try await EnvironmentStore(handler).unsubscribe(patientID: patientID, areaCode: areaCode) else { return false }
                try await Self.announce(areaCode: areaCode, subscribed: false, patientID: patientID, traceID: traceID, handler: handler)
                return true
            }
            guard removed else { throw HTTPProblem(status: .notFound, error: "no subscription to this area") }
            return Response(status: .noContent)
        }
    }

    /// Tells scoring which areas the patient follows (for the report's UV and air-quality section), in the
    /// transaction that changes the subscription: ids and a flag, never the thresholds or conditions.
    static func announce(areaCode: String, subscribed: Bool, patientID: String, traceID: String?, handler: HandlerContext) async throws {
        try await handler.publish(
            EventEnvelope(
                producer: handler.producer, patientID: patientID, traceID: traceID,
                payload: EnvironmentSubscriptionChanged(areaCode: areaCode, subscribed: subscribed, changedAt: Date())))
    }
}
