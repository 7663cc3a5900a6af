import CaretideSchemas
import Foundation
public import Logging
import Synchronization

/// One JSON object per line on standard error: what log collectors in production expect. Messages are static text and
/// metadata holds ids (event, topic, partition, offset), never patient data; this handler adds nothing else.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [
            "time": Timestamp.format(Date()), "level": event.level.rawValue, "logger": label, "message": "\(event.message)",
            "source": event.source,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) where fields[key] == nil {
            fields[key] = "\(value)"
        }
        var line = CaretideJSON.encode(stringMembers: fields)
        line.append(0x0A)
        Self.output.withLock { _ in Self.writeToStandardError(line) }
    }

    /// The whole line with write(2), resumed after a partial write or a signal; a line that cannot be written is
    /// dropped (there is nowhere to report it).
    private static func writeToStandardError(_ line: [UInt8]) {
        line.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Serialises writes so that lines from concurrent tasks never interleave.
    private static let output = Mutex(())
}

public enum LogFormat: String, Sendable {
    case json, text

    /// `LOG_FORMAT` if set; otherwise text on a terminal and JSON lines everywhere else (containers, files).
    public static func fromEnvironment(_ environment: [String: String]) -> LogFormat {
        if let value = environment["LOG_FORMAT"].flatMap(LogFormat.init(rawValue:)) { return value }
        return isatty(STDERR_FILENO) == 1 ? .text : .json
    }

    public func bootstrap() {
        switch self {
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = .trace  // each logger's level is set where it is made
                return handler
            }
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .trace
                return handler
            }
        }
    }
}
