import Dispatch
import Synchronization
import Testing

@testable import CaretideRuntime

/// How log lines leave a service (`LogOutput`): info lines wait for a chunk, a warning takes every line before it
/// out at once, in order, and nothing waits for ever.
@Suite struct LogOutputTests {
    final class Written: Sendable {
        let chunks = Mutex<[[UInt8]]>([])
        var text: [String] { chunks.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }
    }

    @Test("an info line waits; a warning is written at once with the lines before it, in order")
    func warningTakesTheLinesBefore() {
        let written = Written()
        // A delay no test waits for: only the warning can have written the line.
        let output = LogOutput(delay: .seconds(3600), capacity: 1 << 20) { bytes in written.chunks.withLock { $0.append(bytes) } }
        output.append(Array("a\n".utf8), immediately: false)
        output.append(Array("b\n".utf8), immediately: false)
        #expect(written.text.isEmpty)
        output.append(Array("warning\n".utf8), immediately: true)
        #expect(written.text == ["a\nb\nwarning\n"])
        output.append(Array("c\n".utf8), immediately: false)
        output.flush()
        #expect(written.text == ["a\nb\nwarning\n", "c\n"])
    }

    @Test("a full buffer is written at once")
    func fullBuffer() {
        let written = Written()
        let output = LogOutput(delay: .seconds(3600), capacity: 4) { bytes in written.chunks.withLock { $0.append(bytes) } }
        output.append(Array("ab\n".utf8), immediately: false)
        #expect(written.text.isEmpty)
        output.append(Array("cd\n".utf8), immediately: false)
        #expect(written.text == ["ab\ncd\n"])
    }

    @Test("a waiting line is written after the delay without anything else logged")
    func waitingLineLeaves() async {
        let written = Written()
        let output = LogOutput(delay: .milliseconds(10), capacity: 1 << 20) { bytes in written.chunks.withLock { $0.append(bytes) } }
        output.append(Array("a\n".utf8), immediately: false)
        while written.text.isEmpty { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(written.text == ["a\n"])
    }
}
