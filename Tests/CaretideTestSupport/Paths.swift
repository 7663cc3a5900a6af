public import Foundation

public enum Paths {
    /// The package root, found from this file's location.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A built executable of this package (`swift build` puts them in `.build/debug`).
    public static func executable(_ name: String) -> URL {
        let configuration = ProcessInfo.processInfo.environment["CARETIDE_BUILD_CONFIGURATION"] ?? "debug"
        return packageRoot.appendingPathComponent(".build/\(configuration)/\(name)")
    }
}
