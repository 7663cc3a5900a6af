import ArgumentParser
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The floor under ingest's own share of the single POST: the same HTTP framework on the same machine,
/// answering the same request with nothing behind it. It reads the body and answers 201 with an answer the size of
/// ingest's, and does no authentication, validation, database or broker work. `scripts/bench/http-floor` drives it
/// with `ingest-post`'s wrk script, so ingest's CPU per request reads against what the framework alone needs.
struct HTTPFloorBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-floor", abstract: "Serve the single POST's route with nothing behind it, for wrk (scripts/bench/http-floor).")

    @Option(help: "The port to listen on (127.0.0.1).") var port = 8099
    @Option(help: "Seconds to serve before exiting.") var seconds = 60

    func run() async throws {
        let router = Router()
        // The size of ingest's 201: the record's id, revision, change number and links.
        let answer = ByteBuffer(
            string: #"{"measurementId":"00000000-0000-4000-8000-000000000000","revision":1,"changeSequence":1,"#
                + #""links":{"self":"/v1/patients/x/measurements/blood-pressure/00000000-0000-4000-8000-000000000000"}}"#)
        router.post("/v1/patients/:patientId/measurements/blood-pressure") { request, context -> Response in
            var request = request
            _ = try await request.collectBody(upTo: 64 * 1024)
            return Response(status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
        }
        var logger = Logger(label: "http-floor")
        logger.logLevel = .warning
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.runService(gracefulShutdownSignals: []) }
            try await Task.sleep(for: .seconds(seconds))
            group.cancelAll()
        }
    }
}
