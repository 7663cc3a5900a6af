public import Foundation

/// One kept row of a `phenotype.hpoa` file: a phenotype (aspect `P`) annotation of a
/// disease that is not negated (`qualifier` is empty).
public struct HPOAnnotation: Sendable, Hashable {
    /// `database_id`, e.g. `OMIM:154700`, `ORPHA:558`, `DECIPHER:16`.
    public var diseaseID: String
    public var diseaseName: String
    /// `hpo_id`, as written (it may be an alt_id or obsolete id; the knowledge base resolves it).
    public var termID: String
    public var reference: String
    public var evidence: String
    public var onset: String
    public var frequency: String
    public var sex: String
    public var modifier: String
    public var biocuration: String
    /// 1-based line number in the file.
    public var line: Int

    public init(
        diseaseID: String, diseaseName: String, termID: String, reference: String = "",
        evidence: String = "", onset: String = "", frequency: String = "", sex: String = "",
        modifier: String = "", biocuration: String = "", line: Int = 0
    ) {
        self.diseaseID = diseaseID
        self.diseaseName = diseaseName
        self.termID = termID
        self.reference = reference
        self.evidence = evidence
        self.onset = onset
        self.frequency = frequency
        self.sex = sex
        self.modifier = modifier
        self.biocuration = biocuration
        self.line = line
    }
}

/// The kept annotations of a `phenotype.hpoa` file and what was filtered out.
public struct HPOAnnotationSet: Sendable, Hashable {
    /// `#version:` (or `#date:`) comment value, e.g. `2025-01-16`.
    public var version: String?
    public var annotations: [HPOAnnotation]
    /// Rows dropped because `qualifier` was `NOT`.
    public var negatedCount: Int
    /// Rows dropped because `aspect` was not `P` (inheritance, onset, clinical course, ...).
    public var otherAspectCount: Int
    /// Rows dropped because the database prefix was not among the requested ones.
    public var otherDatabaseCount: Int

    public init(
        version: String? = nil, annotations: [HPOAnnotation], negatedCount: Int = 0,
        otherAspectCount: Int = 0, otherDatabaseCount: Int = 0
    ) {
        self.version = version
        self.annotations = annotations
        self.negatedCount = negatedCount
        self.otherAspectCount = otherAspectCount
        self.otherDatabaseCount = otherDatabaseCount
    }
}

/// Parser for the HPO annotation format (`phenotype.hpoa`): `#` comment lines, then the
/// header row `database_id disease_name qualifier hpo_id reference evidence onset frequency
/// sex modifier aspect biocuration` (tab-separated), then one tab-separated row per
/// annotation. Keeps aspect `P` only, drops `NOT` rows, keeps only the given database
/// prefixes (default OMIM, ORPHA, DECIPHER). Malformed rows fail with their line number.
public enum HPOAParser {
    public static let defaultDatabases: Set<String> = ["OMIM", "ORPHA", "DECIPHER"]

    static let header = [
        "database_id", "disease_name", "qualifier", "hpo_id", "reference", "evidence",
        "onset", "frequency", "sex", "modifier", "aspect", "biocuration",
    ]

    public static func parse(
        _ text: String, databases: Set<String> = defaultDatabases
    ) throws(PhenotypeRankingError) -> HPOAnnotationSet {
        try withUTF8Bytes(of: text) { (bytes) throws(PhenotypeRankingError) in
            try parse(bytes: bytes, databases: databases)
        }
    }

    public static func parse(
        _ data: Data, databases: Set<String> = defaultDatabases
    ) throws(PhenotypeRankingError) -> HPOAnnotationSet {
        try withBytes(of: data) { (bytes) throws(PhenotypeRankingError) in
            try parse(bytes: bytes, databases: databases)
        }
    }

    static func parse(
        bytes: UnsafeBufferPointer<UInt8>, databases: Set<String>
    ) throws(PhenotypeRankingError) -> HPOAnnotationSet {
        var scanner = LineScanner(bytes)
        var result = HPOAnnotationSet(annotations: [])
        var sawHeader = false
        var fields = [Slice<UnsafeBufferPointer<UInt8>>]()
        fields.reserveCapacity(12)
        // Rows come grouped by disease: reuse the previous row's id/name strings.
        var previousID: (bytes: Slice<UnsafeBufferPointer<UInt8>>, id: String, name: String)?
        var allowedPrefix: [String: Bool] = [:]

        while let raw = scanner.next() {
            let line = scanner.lineNumber
            if raw.first == UInt8(ascii: "#") {
                if !sawHeader {
                    let comment = try decodeUTF8(raw, format: .hpoa, line: line)
                    for key in ["#version:", "#date:"] where comment.hasPrefix(key) && result.version == nil {
                        result.version = comment.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
                    }
                }
                continue
            }
            if raw.trimmingSpaces().isEmpty { continue }
            split(raw, into: &fields)
            if !sawHeader {
                let names = fields.map { String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self) }
                guard names == header else {
                    throw PhenotypeRankingError(
                        .missingHeader, "expected the header row '\(header.joined(separator: "\\t"))'",
                        format: .hpoa, line: line)
                }
                sawHeader = true
                continue
            }
            guard fields.count == 12 else {
                throw PhenotypeRankingError(
                    .wrongColumnCount, "expected 12 tab-separated columns, found \(fields.count)",
                    format: .hpoa, line: line)
            }
            let aspect = fields[10]
            guard aspect.count == 1, let letter = aspect.first, "PICMH".utf8.contains(letter) else {
                throw PhenotypeRankingError(.invalidAspect, "aspect must be one of P, I, C, M, H", format: .hpoa, line: line)
            }
            let qualifier = fields[2]
            let negated: Bool
            if qualifier.isEmpty {
                negated = false
            } else if qualifier.elementsEqual("NOT") {
                negated = true
            } else {
                throw PhenotypeRankingError(.invalidQualifier, "qualifier must be empty or NOT", format: .hpoa, line: line)
            }
            let idField = fields[0]
            guard let colon = idField.firstIndex(of: UInt8(ascii: ":")), colon > idField.startIndex,
                colon + 1 < idField.endIndex
            else {
                throw PhenotypeRankingError(
                    .invalidDiseaseID, "database_id must look like OMIM:154700", format: .hpoa, line: line)
            }
            let termField = fields[3]
            guard termField.hasPrefix("HP:"), termField.count > 3 else {
                throw PhenotypeRankingError(.invalidTermID, "hpo_id must look like HP:0000118", format: .hpoa, line: line)
            }
            if letter != UInt8(ascii: "P") {
                result.otherAspectCount += 1
                continue
            }
            if negated {
                result.negatedCount += 1
                continue
            }
            let prefix = String(decoding: UnsafeBufferPointer(rebasing: idField[idField.startIndex..<colon]), as: UTF8.self)
            let allowed: Bool
            if let known = allowedPrefix[prefix] {
                allowed = known
            } else {
                allowed = databases.contains(prefix)
                allowedPrefix[prefix] = allowed
            }
            guard allowed else {
                result.otherDatabaseCount += 1
                continue
            }
            let diseaseID: String
            let diseaseName: String
            if let previous = previousID, previous.bytes.elementsEqual(idField) {
                diseaseID = previous.id
                diseaseName = previous.name
            } else {
                diseaseID = try decodeUTF8(idField, format: .hpoa, line: line)
                diseaseName = try decodeUTF8(fields[1], format: .hpoa, line: line)
                previousID = (idField, diseaseID, diseaseName)
            }
            func text(_ index: Int) throws(PhenotypeRankingError) -> String {
                fields[index].isEmpty ? "" : try decodeUTF8(fields[index], format: .hpoa, line: line)
            }
            result.annotations.append(
                HPOAnnotation(
                    diseaseID: diseaseID, diseaseName: diseaseName, termID: try text(3),
                    reference: try text(4), evidence: try text(5), onset: try text(6),
                    frequency: try text(7), sex: try text(8), modifier: try text(9),
                    biocuration: try text(11), line: line))
        }
        guard sawHeader else {
            throw PhenotypeRankingError(
                .missingHeader, "no header row found", format: .hpoa, line: max(scanner.lineNumber, 1))
        }
        return result
    }

    private static func split(
        _ line: Slice<UnsafeBufferPointer<UInt8>>, into fields: inout [Slice<UnsafeBufferPointer<UInt8>>]
    ) {
        fields.removeAll(keepingCapacity: true)
        var start = line.startIndex
        var i = start
        while i < line.endIndex {
            if line[i] == 0x09 {
                fields.append(line[start..<i])
                start = i + 1
            }
            i += 1
        }
        fields.append(line[start..<line.endIndex])
    }
}
