import Foundation
import Testing

@testable import DiagnosisService

/// An `ontology-update.requested` event comes from the broker: it may name only regular files under `HPO_DATA_DIR`,
/// and every refusal reads the same, so an event cannot probe what exists outside the directory.
@Suite struct ReleaseFileGuardTests {
    /// A data directory holding `hp.obo`, a sub-directory, and a link pointing out of it; removed by the caller.
    private func dataDirectory() throws -> (root: URL, data: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("release-guard-\(UUID().uuidString)")
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try Data("format-version: 1.2\n".utf8).write(to: data.appendingPathComponent("hp.obo"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("outside.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("escape.obo").path, withDestinationPath: root.appendingPathComponent("outside.txt").path)
        return (root, data)
    }

    @Test("a regular file under the directory resolves, by relative or absolute name, to its real path")
    func allowed() throws {
        let (root, data) = try dataDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let guarding = ReleaseFileGuard(directory: data.path)
        let real = try guarding.resolve("hp.obo", which: "ontology")
        #expect(real.hasSuffix("/data/hp.obo"))
        #expect(try guarding.resolve(real, which: "ontology") == real)
    }

    @Test(
        "names outside the directory, through a link, with .., a directory, a missing file or a NUL are refused alike",
        arguments: ["../outside.txt", "nested/../hp.obo", "escape.obo", "nested", "missing.obo", "", "hp.obo\u{0}", "/etc/passwd"])
    func refused(name: String) throws {
        let (root, data) = try dataDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect {
            try ReleaseFileGuard(directory: data.path).resolve(name, which: "annotation")
        } throws: { error in
            (error as? OntologyImportError)?.description
                == "the annotation file is not a regular file of at most 512 MiB under the HPO data directory"
        }
    }

    @Test("without a data directory, imports by event are off and the refusal says how to turn them on")
    func disabled() {
        #expect {
            try ReleaseFileGuard(directory: nil).resolve("hp.obo", which: "ontology")
        } throws: { error in
            (error as? OntologyImportError)?.description.contains("set HPO_DATA_DIR") == true
        }
    }
}
