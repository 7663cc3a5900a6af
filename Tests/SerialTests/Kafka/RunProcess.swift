import CaretideTestSupport
import Foundation

/// Runs a command (kcat) with optional standard input; kills it after `timeout`.
struct ProcessResult: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

func runProcess(_ arguments: [String], input: String? = nil, timeout: Duration = .seconds(10)) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = inputPipe

    let exited = AsyncStream<Int32>.makeStream()
    process.terminationHandler = { process in
        exited.continuation.yield(process.terminationStatus)
        exited.continuation.finish()
    }
    try process.run()
    if let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
    }
    try inputPipe.fileHandleForWriting.close()

    // Drain the pipes while the process runs (outputs are small).
    let readOutput = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
    let readErrors = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }

    let pid = process.processIdentifier
    let status: Int32
    do {
        status = try await withTimeout(timeout) {
            var iterator = exited.stream.makeAsyncIterator()
            return await iterator.next() ?? -1
        }
    } catch {
        kill(pid, SIGKILL)
        throw error
    }
    process.terminationHandler = nil
    return ProcessResult(
        status: status,
        standardOutput: String(decoding: await readOutput.value, as: UTF8.self),
        standardError: String(decoding: await readErrors.value, as: UTF8.self)
    )
}
