import CaretideIdentity
import CaretideSchemas
import HTTPTypes

/// Where a write comes from, for what it leaves behind: the trace id of the events it causes, and the audit entry
/// recorded in its transaction (`ServiceContext.transaction(auditing:status:_:)`). An HTTP request, or a message a
/// hospital pipeline put on an inbound topic.
public struct WriteOrigin: Sendable {
    public let traceID: String
    let audit: RequestAudit?

    /// An institution's message from an inbound Kafka topic. No token travels with it: the broker's ACLs decide who
    /// may produce there. So the audit names the topic as the subject and the message key's institution as the one
    /// acting, with the operation `CONSUME <topic>`. The trace id is the producer's (`traceparent` or `trace-id`
    /// header, as over HTTP), else a new one.
    public static func inboundMessage(_ message: InboundMessage, institutionID: String) -> WriteOrigin {
        let topic = message.topic.name
        let traceID = message.traceID ?? CaretideRequestContext.newRequestID()
        let entry = AuditEntry(
            identity: Identity(subject: "kafka:\(topic)", role: .institution, institutionID: institutionID), access: .institutionResults,
            method: HTTPRequest.Method("CONSUME")!, route: topic, patientID: nil, owner: institutionID, outcome: .allowed, status: 0,
            requestID: traceID)
        return WriteOrigin(traceID: traceID, audit: RequestAudit(entry: entry))
    }
}

extension CaretideRequestContext {
    /// The request as the origin of the writes it makes.
    public var origin: WriteOrigin { WriteOrigin(traceID: requestID, audit: audit) }
}
