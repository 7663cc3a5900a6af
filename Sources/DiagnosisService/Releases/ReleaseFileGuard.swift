import Foundation

/// Which files an `ontology-update.requested` event may name: regular files under the configured data directory
/// (`HPO_DATA_DIR`), no `..`, no symbolic link leading out of it, at most `maximumBytes`. The event comes from the
/// broker, so it is not trusted to read `/etc/shadow`. Every refusal reads the same, so an event cannot probe
/// whether a file exists outside the directory. (The file is read by path after the check: whoever could swap it
/// for a link in between can write to the data directory, and so could replace the release anyway.)
public struct ReleaseFileGuard: Sendable {
    /// The directory, with its symbolic links resolved; nil turns imports by event off.
    public let directory: String?
    /// hp.obo is about 10 MB and phenotype.hpoa about 30 MB; a tenfold margin.
    public static let maximumBytes = 512 << 20

    public init(directory: String?) {
        self.directory = directory.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().standardizedFileURL.path }
    }

    /// The real path of `name` (absolute, or relative to the directory), or the one refusal, naming `which` file
    /// ("ontology", "annotation") and never the path.
    func resolve(_ name: String, which: String) throws(OntologyImportError) -> String {
        guard let directory else { throw .importsByEventDisabled }
        let refusal = OntologyImportError.fileNotAllowed(which)
        guard !name.isEmpty, !name.split(separator: "/").contains(".."), !name.utf8.contains(0) else { throw refusal }
        let candidate = name.hasPrefix("/") ? name : directory + "/" + name
        let real = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().standardizedFileURL.path
        guard real.hasPrefix(directory + "/") else { throw refusal }
        // `attributesOfItem` does not follow a final symbolic link (lstat), so a link swapped in is not a regular file.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: real),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= Self.maximumBytes
        else { throw refusal }
        return real
    }
}
