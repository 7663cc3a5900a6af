/// A compact index of an ontology term (position in ``PhenotypeOntology/termIDs``).
public struct TermIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    init(_ value: Int) { rawValue = Int32(value) }

    var int: Int { Int(rawValue) }
    public static func < (lhs: TermIndex, rhs: TermIndex) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// How an identifier string maps onto the current ontology.
public enum TermResolution: Hashable, Sendable {
    /// A current (non-obsolete) term's primary id.
    case current(TermIndex)
    /// An `alt_id` of a current term.
    case alternative(TermIndex)
    /// An obsolete term, mapped through its `replaced_by` chain (or an `alt_id` it carries).
    case replaced(TermIndex)
    /// An obsolete term with no usable replacement; `consider` lists the curators' suggestions.
    case obsoleteWithoutReplacement(consider: [String])
    /// Not in the ontology.
    case unknown

    /// The current term, if the identifier resolves to one.
    public var term: TermIndex? {
        switch self {
        case .current(let t), .alternative(let t), .replaced(let t): return t
        case .obsoleteWithoutReplacement, .unknown: return nil
        }
    }
}

/// The is-a structure of an ontology (the HPO), with compact `Int32` term indices.
///
/// Only current (non-obsolete) terms get an index; they are ordered by identifier.
/// Obsolete identifiers and `alt_id`s resolve through ``resolve(_:)``. Parents, children and
/// ancestors (each term's ancestors *including itself*) are stored as sorted arrays in
/// compressed-sparse-row form; a topological order (parents before children) is kept for
/// dynamic programming over the DAG.
public final class PhenotypeOntology: Sendable {
    public let formatVersion: String?
    public let dataVersion: String?
    /// Primary identifiers of the current terms, sorted; a term's index is its position here.
    public let termIDs: [String]
    public let termNames: [String]
    public let termSynonyms: [[OBOSynonym]]

    let parentOffsets: [Int32]
    let parentList: [Int32]
    let childOffsets: [Int32]
    let childList: [Int32]
    let ancestorOffsets: [Int32]
    let ancestorList: [Int32]
    /// Every term index, parents before children.
    let topologicalOrder: [Int32]
    private let resolutions: [String: TermResolution]

    public var termCount: Int { termIDs.count }

    /// The most ancestors a term may have. A current release gives a term a few dozen; this leaves room for the
    /// ontology to grow many times over and keeps every walk up from a term short.
    public static let maximumAncestorsPerTerm = 1_000
    /// The most inherited ancestors the import may read while building every term's list (each parent's list, once
    /// per child): the bound on its time and on the lists' memory. A current release needs a few hundred thousand.
    public static let maximumAncestorVisits = 20_000_000

    /// Builds the ontology from a parsed `hp.obo`.
    ///
    /// Fails if an `is_a` refers to an unknown term (with the stanza's line), the is-a
    /// graph has a cycle, or it exceeds `maximumAncestorsPerTerm` or `maximumAncestorVisits`.
    /// An `is_a` to an `alt_id` or to an obsolete term with a replacement is accepted and mapped.
    public init(document: OBODocument) throws(PhenotypeRankingError) {
        formatVersion = document.formatVersion
        dataVersion = document.dataVersion
        let current = document.terms.filter { !$0.isObsolete }.sorted { $0.id < $1.id }
        let count = current.count
        termIDs = current.map(\.id)
        termNames = current.map(\.name)
        termSynonyms = current.map(\.synonyms)

        // Identifier resolution. Primary ids first; then obsolete stanzas, through their
        // replaced_by chain or, failing that, an alt_id of a current term that lists them; then
        // the remaining alt_ids.
        var resolutions: [String: TermResolution] = [:]
        resolutions.reserveCapacity(document.terms.count * 2)
        var altOwner: [String: TermIndex] = [:]
        for (index, term) in current.enumerated() {
            resolutions[term.id] = .current(TermIndex(index))
            for alt in term.altIDs where altOwner[alt] == nil { altOwner[alt] = TermIndex(index) }
        }
        let obsolete = Dictionary(
            document.terms.filter(\.isObsolete).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // Depth first through replaced_by (each target in order, then the term's alt_id owner), on a stack of its
        // own: a chain as long as a release file may hold must not overflow the importing thread's stack. Every term on
        // the way to a current one resolves to it too, so a long chain is walked once, not once per term in it (a
        // cycle, which no release holds, may then resolve through whichever of its terms came first).
        func resolveObsolete(_ start: String) -> TermIndex? {
            var visited = Set<String>()
            var trail: [(id: String, next: Int)] = []
            func found(_ term: TermIndex) -> TermIndex {
                for (id, _) in trail { resolutions[id] = .replaced(term) }
                return term
            }
            var candidate: String? = start
            while true {
                if let id = candidate {
                    candidate = nil
                    switch resolutions[id] {
                    case .current(let t)?, .replaced(let t)?: return found(t)
                    default: break
                    }
                    if obsolete[id] != nil, visited.insert(id).inserted {
                        trail.append((id, 0))
                    } else if let t = altOwner[id] {
                        return found(t)
                    }
                }
                guard let (id, next) = trail.last else { return nil }
                let targets = obsolete[id]!.replacedBy
                if next < targets.count {
                    trail[trail.count - 1].next += 1
                    candidate = targets[next]
                } else {
                    trail.removeLast()
                    if let t = altOwner[id] { return found(t) }
                }
            }
        }
        for id in obsolete.keys.sorted() where resolutions[id] == nil {
            if let t = resolveObsolete(id) {
                resolutions[id] = .replaced(t)
            } else {
                resolutions[id] = .obsoleteWithoutReplacement(consider: obsolete[id]!.consider)
            }
        }
        for id in obsolete.keys.sorted() {
            for alt in obsolete[id]!.altIDs where resolutions[alt] == nil { resolutions[alt] = resolutions[id] }
        }
        for (alt, owner) in altOwner where resolutions[alt] == nil {
            resolutions[alt] = .alternative(owner)
        }
        self.resolutions = resolutions

        // Parents (deduplicated, sorted) and children.
        var parents = [[Int32]](repeating: [], count: count)
        var children = [[Int32]](repeating: [], count: count)
        for (index, term) in current.enumerated() {
            var set = Set<Int32>()
            for parentID in term.isA {
                guard let parent = resolutions[parentID]?.term else {
                    throw PhenotypeRankingError(
                        .unknownParent, "\(term.id) has is_a \(parentID), which is not a current term",
                        format: .obo, line: term.line)
                }
                if parent.int != index { set.insert(parent.rawValue) }
            }
            parents[index] = set.sorted()
            for parent in parents[index] { children[Int(parent)].append(Int32(index)) }
        }
        (parentOffsets, parentList) = Self.csr(parents)
        (childOffsets, childList) = Self.csr(children)

        // Kahn's algorithm: topological order or a cycle error.
        var indegree = parents.map(\.count)
        var order = [Int32]()
        order.reserveCapacity(count)
        for index in 0..<count where indegree[index] == 0 { order.append(Int32(index)) }
        var head = 0
        while head < order.count {
            let t = Int(order[head])
            head += 1
            for child in children[t] {
                indegree[Int(child)] -= 1
                if indegree[Int(child)] == 0 { order.append(child) }
            }
        }
        guard order.count == count else {
            let stuck = (0..<count).first { indegree[$0] > 0 }!
            throw PhenotypeRankingError(
                .cycle, "the is_a graph has a cycle through \(current[stuck].id)", format: .obo, line: current[stuck].line)
        }
        topologicalOrder = order

        // Ancestors including self, sorted, computed in topological order. Bounded: a chain of `is_a`s makes the lists
        // grow with the square of its length, so a few megabytes of a crafted file would otherwise exhaust memory.
        var ancestors = [[Int32]](repeating: [], count: count)
        var stamp = [Int32](repeating: -1, count: count)
        var visits = 0
        for t32 in order {
            let t = Int(t32)
            var set: [Int32] = [t32]
            stamp[t] = t32
            for parent in parents[t] {
                let inherited = ancestors[Int(parent)]
                visits += inherited.count
                guard visits <= Self.maximumAncestorVisits else {
                    throw PhenotypeRankingError(
                        .tooLarge, "the is_a graph has more than \(Self.maximumAncestorVisits) ancestor links to follow",
                        format: .obo, line: current[t].line)
                }
                for a in inherited where stamp[Int(a)] != t32 {
                    stamp[Int(a)] = t32
                    set.append(a)
                }
            }
            guard set.count <= Self.maximumAncestorsPerTerm else {
                throw PhenotypeRankingError(
                    .tooLarge, "\(current[t].id) has more than \(Self.maximumAncestorsPerTerm) ancestors", format: .obo, line: current[t].line)
            }
            set.sort()
            ancestors[t] = set
        }
        (ancestorOffsets, ancestorList) = Self.csr(ancestors)
    }

    private static func csr(_ lists: [[Int32]]) -> ([Int32], [Int32]) {
        var offsets = [Int32]()
        offsets.reserveCapacity(lists.count + 1)
        var flat = [Int32]()
        flat.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        offsets.append(0)
        for list in lists {
            flat.append(contentsOf: list)
            offsets.append(Int32(flat.count))
        }
        return (offsets, flat)
    }

    // MARK: Lookup

    /// Resolves a term identifier (primary id, `alt_id`, or obsolete id).
    public func resolve(_ id: String) -> TermResolution {
        resolutions[id] ?? .unknown
    }

    public func id(of term: TermIndex) -> String { termIDs[term.int] }

    /// Every identifier that is not a current term's own (`alt_id`s and obsolete ids), by id, with what `resolve`
    /// answers for it: what a copy of the ontology needs to map old identifiers the same way.
    public var identifierMappings: [(id: String, resolution: TermResolution)] {
        resolutions.compactMap { id, resolution in
            if case .current = resolution { return nil }
            return (id, resolution)
        }.sorted { $0.id < $1.id }
    }
    public func name(of term: TermIndex) -> String { termNames[term.int] }

    public func parents(of term: TermIndex) -> [TermIndex] {
        parentList[Int(parentOffsets[term.int])..<Int(parentOffsets[term.int + 1])].map(TermIndex.init)
    }

    public func children(of term: TermIndex) -> [TermIndex] {
        childList[Int(childOffsets[term.int])..<Int(childOffsets[term.int + 1])].map(TermIndex.init)
    }

    /// All ancestors of `term`, including `term` itself, sorted by index.
    public func ancestors(of term: TermIndex) -> [TermIndex] {
        ancestorSlice(term.int).map(TermIndex.init)
    }

    func ancestorSlice(_ t: Int) -> ArraySlice<Int32> {
        ancestorList[Int(ancestorOffsets[t])..<Int(ancestorOffsets[t + 1])]
    }

    func childSlice(_ t: Int) -> ArraySlice<Int32> {
        childList[Int(childOffsets[t])..<Int(childOffsets[t + 1])]
    }

    func parentSlice(_ t: Int) -> ArraySlice<Int32> {
        parentList[Int(parentOffsets[t])..<Int(parentOffsets[t + 1])]
    }

    /// Whether `ancestor` is `term` or one of its ancestors (binary search).
    public func isAncestor(_ ancestor: TermIndex, of term: TermIndex) -> Bool {
        isAncestor(ancestor.rawValue, of: term.int)
    }

    func isAncestor(_ ancestor: Int32, of t: Int) -> Bool {
        var lo = Int(ancestorOffsets[t])
        var hi = Int(ancestorOffsets[t + 1])
        while lo < hi {
            let mid = (lo + hi) >> 1
            let value = ancestorList[mid]
            if value == ancestor { return true }
            if value < ancestor { lo = mid + 1 } else { hi = mid }
        }
        return false
    }

    /// All descendants of `term`, including `term` itself, sorted by index.
    public func descendants(of term: TermIndex) -> [TermIndex] {
        var marks = [Bool](repeating: false, count: termCount)
        markDescendants(of: term.int, in: &marks)
        return marks.indices.filter { marks[$0] }.map(TermIndex.init)
    }

    /// Sets `marks[x] = true` for `t` and every descendant (iterative DFS; stops at marked nodes).
    func markDescendants(of t: Int, in marks: inout [Bool]) {
        guard !marks[t] else { return }
        marks[t] = true
        var stack = [Int32(t)]
        while let x = stack.popLast() {
            for child in childSlice(Int(x)) where !marks[Int(child)] {
                marks[Int(child)] = true
                stack.append(child)
            }
        }
    }
}
