import CaretideSchemas
import Foundation
public import Logging
import Synchronization

/// One JSON object per line on standard error: what log collectors in production expect. Messages are static text and
/// metadata holds ids (event, topic, partition, offset), never patient data; this handler adds nothing else. Lines
/// leave through `LogOutput`.
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
        // Pairs, not a dictionary: every request writes a line, and hashing its members cost more than writing them.
        var members: [(key: String, value: String)] = [
            ("time", Timestamp.format(Date())), ("level", event.level.rawValue), ("logger", label), ("message", event.message.description),
            ("source", event.source),
        ]
        let own = event.metadata ?? [:]
        for (key, value) in metadata where own[key] == nil && !Self.isFixed(key) { members.append((key, value.description)) }
        for (key, value) in own where !Self.isFixed(key) { members.append((key, value.description)) }
        var line = CaretideJSON.encode(stringMembers: members)
        line.append(0x0A)
        LogOutput.standardError.append(line, immediately: event.level >= .warning)
    }

    /// The members every line has, which no metadata may replace.
    private static func isFixed(_ key: String) -> Bool {
        switch key {
        case "time", "level", "logger", "message", "source": true
        default: false
        }
    }
}

/// Standard error, written a chunk at a time. A line at info or below waits up to `delay`, so that a busy service
/// makes one write (and wakes its log collector once) a tenth of a second rather than once per request, as web
/// servers' buffered access logs do; a warning or worse is written at once with every line before it, and so is a
/// full buffer. What waits is written at exit (a crash loses at most the last `delay` of info lines, never a warning).
final class LogOutput: Sendable {
    static let standardError: LogOutput = {
        atexit { LogOutput.standardError.flush() }
        return LogOutput(delay: .milliseconds(100), capacity: 64 * 1024, sink: writeToStandardError)
    }()

    let delay: DispatchTimeInterval
    let capacity: Int
    private let sink: @Sendable ([UInt8]) -> Void
    /// Lines not written yet, in order. Whenever it holds any, a flush is due within `delay`.
    private let pending = Mutex<[UInt8]>([])

    init(delay: DispatchTimeInterval, capacity: Int, sink: @escaping @Sendable ([UInt8]) -> Void) {
        self.delay = delay
        self.capacity = capacity
        self.sink = sink
    }

    func append(_ line: [UInt8], immediately: Bool) {
        let firstWaiting = pending.withLock { pending in
            let wasEmpty = pending.isEmpty
            pending += line
            guard immediately || pending.count >= capacity else { return wasEmpty }
            sink(pending)
            pending.removeAll(keepingCapacity: true)
            return false
        }
        if firstWaiting { DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.flush() } }
    }

    /// Writes what waits.
    func flush() {
        pending.withLock { pending in
            guard !pending.isEmpty else { return }
            sink(pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// The bytes with write(2), resumed after a partial write or a signal; what cannot be written is dropped (there is
    /// nowhere to report it).
    private static func writeToStandardError(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
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
