import Foundation
import Logging

enum CommandLogging {
    /// `LoggingSystem.bootstrap` may run only once per process.
    private static let bootstrapped: Void = LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }

    static func logger(_ label: String) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: label)
        logger.logLevel = .info
        return logger
    }
}

enum Console {
    /// Writes straight to standard output, unbuffered, so scripts waiting for a line see it at once.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
