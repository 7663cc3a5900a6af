import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging

extension DiagnosisRequestHandler {
    /// `diagnosis.requested` → `diagnosis.ranked` or `diagnosis.refused`, once per request id.
    func answer(_ request: DiagnosisRequested, event: ValidatedEvent, context: HandlerContext) async throws {
        let outcome = catalog.rank(RankingQuery(request), requestID: request.requestID)
        let (name, releaseID): (String, Int?) =
            switch outcome {
            case .ranked(let ranked): ("ranked", ranked.release.releaseID)
            case .refused(let refused): (refused.reason.rawValue, nil)
            }
        guard
            try await AnsweredRequests(context).recordFirst(
                requestID: request.requestID, eventID: event.eventID, outcome: name, releaseID: releaseID)
        else {
            context.logger.notice("diagnosis request already answered", metadata: [LogKey.requestID: "\(request.requestID)"])
            return
        }
        switch outcome {
        case .ranked(let ranked): try await context.publish(context.envelope(for: ranked, causedBy: event))
        case .refused(let refused): try await context.publish(context.envelope(for: refused, causedBy: event))
        }
    }
}
