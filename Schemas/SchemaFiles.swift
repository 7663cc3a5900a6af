public import Foundation

/// This folder is both the contract people read and a SwiftPM resource target, so the services validate against
/// exactly these files: `SchemaFiles.directory` is where the build copied them.
public enum SchemaFiles {
    public static var directory: URL { Bundle.module.resourceURL! }
}
