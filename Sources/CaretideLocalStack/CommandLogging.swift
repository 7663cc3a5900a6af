import Foundation
public import Logging

/// Logging for the command-line tools (`caretide`, `caretide-bench`): lines on standard error, the label naming the
/// command.
public enum CommandLogging {
    /// `LoggingSystem.bootstrap` may run only once per process.
    private static let bootstrapped: Void = LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }

    public static func logger(_ label: String) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: label)
        logger.logLevel = .info
        return logger
    }
}

/// What the command-line tools print for people and scripts to read.
public enum Console {
    /// Writes straight to standard output, unbuffered, so scripts waiting for a line see it at once.
    public static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
