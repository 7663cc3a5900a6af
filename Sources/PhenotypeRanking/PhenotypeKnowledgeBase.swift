public import Foundation

/// A problem found while loading annotations; the row is skipped or mapped, not fatal.
public struct LoadWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// `hpo_id` is not in the ontology; the row is skipped.
        case unknownTerm
        /// `hpo_id` is obsolete and was mapped through `replaced_by`.
        case obsoleteTermMapped
        /// `hpo_id` is an `alt_id` and was mapped to the primary id.
        case alternativeIDMapped
        /// `hpo_id` is obsolete without a replacement; the row is skipped.
        case obsoleteWithoutReplacement
        /// `hpo_id` is not under the phenotype root (HP:0000118); the row is skipped.
        case outsidePhenotypeRoot
    }

    public let code: Code
    public let termID: String
    public let diseaseID: String
    /// 1-based line in `phenotype.hpoa` (0 when the annotation was built in code).
    public let line: Int
    /// The current term the id was mapped to, for the two mapping codes.
    public let mappedTo: String?

    public var description: String {
        "phenotype.hpoa line \(line): \(code.rawValue) \(termID)" + (mappedTo.map { " -> \($0)" } ?? "")
    }
}

/// The ontology plus the disease annotations and the information content of every term —
/// the data of the Phenomizer method (Köhler S, Schulz MH, Krawitz P, et al. "Clinical
/// diagnostics in human genetics with semantic similarity searches in ontologies."
/// Am J Hum Genet 2009;85(4):457-64).
///
/// Annotations are propagated to ancestors (the annotation-propagation or "true-path" rule)
/// for counting: `count(t)` is the number of diseases annotated with `t` or a descendant, and
/// `IC(t) = −ln(count(t) / D)` with `D` the number of diseases. A term no disease is annotated
/// to (count 0) is given `IC = ln D`, the largest possible value; such a term can never be the
/// common ancestor of a query term and an annotation, so this only matters for exclusions and
/// suggestions.
public final class PhenotypeKnowledgeBase: Sendable {
    public let ontology: PhenotypeOntology
    /// `#version` of the annotation file.
    public let annotationVersion: String?
    /// Root of the subtree used for queries, annotations and random sampling (HP:0000118).
    public let phenotypeRoot: TermIndex
    /// Disease identifiers, sorted; a disease's index is its position here.
    public let diseaseIDs: [String]
    public let diseaseNames: [String]
    /// The sources diseases come from (the prefix of their id: `DECIPHER`, `OMIM`, `ORPHA`), sorted.
    public let diseaseSources: [String]
    /// Each disease's source, as a position in `diseaseSources`.
    let diseaseSourceIndex: [UInt8]
    /// Direct annotations per disease (sorted term indices, duplicates removed), CSR form: the disease's own and, where
    /// sources are pooled, those of the same disease in the other sources (`pooling`).
    let annotationOffsets: [Int32]
    let annotationTerms: [Int32]
    /// Each disease's ancestors of its annotations (themselves included), each listed once, at the first annotation
    /// that has it, in the order the annotations and then their ancestors come: those first met at the annotation at
    /// `annotationTerms[i]` are `firstAncestors[firstAncestorStarts[i]..<firstAncestorStarts[i + 1]]`. What explaining
    /// a disease walks instead of every annotation's ancestors, which share most of theirs.
    let firstAncestors: [Int32]
    let firstAncestorStarts: [Int32]
    /// In step with `annotationTerms`: whether the disease's own source gives the annotation (false: pooled from another).
    let annotationIsOwn: [Bool]
    /// Which entries of different sources each disease is scored with besides its own (`SourcePooling`).
    public let pooling: SourcePooling
    /// The entries of different sources that name the same disease by the current rule (`sameDiseaseGroups`), whatever
    /// `pooling` is: what simulated patients count as one disease, so that every rule is measured alike. Each shares
    /// its annotations with the others of its group as `pooling` groups them (under an earlier rule, fewer groups).
    public let sameDisease: [[String]]
    /// The entries of other sources each entry is scored with (`pooling`), sorted; absent for an entry pooled with none.
    public let pooledWith: [String: [String]]
    /// How often the disease shows each annotation (`AnnotationFrequency`), in step with `annotationTerms`; NaN
    /// where the annotation file gives no frequency. Several rows of one term keep the highest share given.
    let annotationShares: [Float]
    /// Information content per term (natural log), as `Float` for the scoring kernels.
    let ic: [Float]
    /// `ic` in full precision (`Double`): reported scores and explanations are computed from it; the search over all
    /// diseases and the null distributions use `ic`, so a query scores as a random one does.
    let ic64: [Double]
    /// Number of diseases annotated with each term or one of its descendants.
    public let diseaseCountByTerm: [Int32]
    /// The diseases annotated with each term or one of its descendants (ascending), CSR form: the annotations
    /// propagated to every ancestor, which the ranking reads term by term (`scores(present:absent:mode:likelihoodRatio:)`).
    let diseasesUnderOffsets: [Int32]
    let diseasesUnder: [Int32]
    /// In step with `diseasesUnder`: `ln(f / b)`, with `f` the share of the disease's patients expected to show the
    /// term (`LikelihoodRatioScoring`) and `b` the term's background share (`presentBackground`).
    let underLogRatios: [Float]
    /// In step with `diseasesUnder`: the share of the disease's patients expected to show the term, for an absent
    /// finding (no frequency given: `LikelihoodRatioScoring.unknownShareIfAbsent`).
    let underAbsentShares: [Float]
    /// Per term: the mean over all diseases of the share of their patients expected to show it (0 for a term no
    /// disease is annotated under, floored at `LikelihoodRatioScoring.leastBackground` otherwise).
    let presentBackground: [Double]
    /// Whether each term lies in the phenotype subtree (root included).
    let inPhenotypeSubtree: [Bool]
    /// The terms random queries are drawn from: current terms strictly below the phenotype root.
    let samplingUniverse: [Int32]
    /// `ln D`: the largest information content any term can have.
    public let maxInformationContent: Double
    /// Rows skipped or mapped while loading.
    public let warnings: [LoadWarning]
    /// A stable hash of terms, is-a edges, diseases and annotations; a null distribution
    /// records it so it is never used with different data.
    public let fingerprint: UInt64
    private let diseaseLookup: [String: Int32]

    /// The most annotations the knowledge base may hold after pooling, counted as if no two pooled entries shared a
    /// finding (a current release has a few hundred thousand).
    public static let maximumAnnotations = 20_000_000
    /// The most ancestors the annotations may reach in all, each annotation's counted (a current release reaches a
    /// few million): the bound on propagating them and on the tables that hold each term's diseases.
    public static let maximumPropagationVisits = 50_000_000

    public var diseaseCount: Int { diseaseIDs.count }
    public var termCount: Int { ontology.termCount }
    public var annotationCount: Int { annotationTerms.count }

    /// Parses `hp.obo` and `phenotype.hpoa` text and builds the knowledge base.
    public convenience init(
        obo: String, hpoa: String, databases: Set<String> = HPOAParser.defaultDatabases,
        phenotypeRootID: String = "HP:0000118"
    ) throws(PhenotypeRankingError) {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(obo))
        let annotations = try HPOAParser.parse(hpoa, databases: databases)
        try self.init(ontology: ontology, annotations: annotations, phenotypeRootID: phenotypeRootID)
    }

    /// Parses `hp.obo` and `phenotype.hpoa` bytes (UTF-8) and builds the knowledge base.
    public convenience init(
        obo: Data, hpoa: Data, databases: Set<String> = HPOAParser.defaultDatabases,
        phenotypeRootID: String = "HP:0000118", pooling: SourcePooling = .current
    ) throws(PhenotypeRankingError) {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(obo))
        let annotations = try HPOAParser.parse(hpoa, databases: databases)
        try self.init(ontology: ontology, annotations: annotations, phenotypeRootID: phenotypeRootID, pooling: pooling)
    }

    /// Builds the knowledge base from a parsed ontology and annotation set.
    ///
    /// Annotation term ids are resolved through the ontology (alt_ids and obsolete ids are
    /// mapped, with a ``LoadWarning``); rows with unknown terms or terms outside the phenotype
    /// subtree are skipped with a warning. Diseases keep the name of their first row.
    ///
    /// Unless `pooling` is `.separate`, the entries of different sources (OMIM, ORPHA, DECIPHER) that name the same
    /// disease are each scored with the annotations of all of them (`sameDiseaseGroups`).
    public init(
        ontology: PhenotypeOntology, annotations: HPOAnnotationSet, phenotypeRootID: String = "HP:0000118", pooling: SourcePooling = .current
    ) throws(PhenotypeRankingError) {
        self.ontology = ontology
        annotationVersion = annotations.version
        guard let root = ontology.resolve(phenotypeRootID).term else {
            throw PhenotypeRankingError(.missingRoot, "the ontology has no term \(phenotypeRootID)")
        }
        phenotypeRoot = root
        let termCount = ontology.termCount
        var subtree = [Bool](repeating: false, count: termCount)
        ontology.markDescendants(of: root.int, in: &subtree)
        inPhenotypeSubtree = subtree

        // Resolve rows, group by disease.
        var warnings: [LoadWarning] = []
        var byDisease: [String: (name: String, terms: [Int32: Float])] = [:]
        var cache: [String: TermResolution] = [:]
        for row in annotations.annotations {
            let resolution: TermResolution
            if let cached = cache[row.termID] {
                resolution = cached
            } else {
                resolution = ontology.resolve(row.termID)
                cache[row.termID] = resolution
            }
            func warn(_ code: LoadWarning.Code, _ mapped: TermIndex? = nil) {
                warnings.append(
                    LoadWarning(
                        code: code, termID: row.termID, diseaseID: row.diseaseID, line: row.line,
                        mappedTo: mapped.map { ontology.id(of: $0) }))
            }
            let term: TermIndex
            switch resolution {
            case .current(let t): term = t
            case .alternative(let t):
                warn(.alternativeIDMapped, t)
                term = t
            case .replaced(let t):
                warn(.obsoleteTermMapped, t)
                term = t
            case .obsoleteWithoutReplacement:
                warn(.obsoleteWithoutReplacement)
                continue
            case .unknown:
                warn(.unknownTerm)
                continue
            }
            guard subtree[term.int] else {
                warn(.outsidePhenotypeRoot)
                continue
            }
            let share = AnnotationFrequency.share(row.frequency).map(Float.init) ?? .nan
            byDisease[row.diseaseID, default: (row.diseaseName, [:])].terms[term.rawValue, default: .nan].keepHigher(share)
        }
        guard !byDisease.isEmpty else {
            throw PhenotypeRankingError(.noDiseases, "no disease has a usable phenotype annotation")
        }
        self.warnings = warnings
        self.pooling = pooling
        let names = byDisease.mapValues(\.name)
        sameDisease = Self.sameDiseaseGroups(names)
        let groups = pooling == .current ? sameDisease : Self.sameDiseaseGroups(names, by: pooling)
        // Pooling multiplies annotations (each entry of a group takes the others'), with the square of a group's size:
        // their count is bounded before any is made, by what it would be if no two entries of a group shared a finding.
        var mostAnnotations = byDisease.values.reduce(0) { $0 + $1.terms.count }
        for group in groups {
            mostAnnotations += (group.count - 1) * group.reduce(0) { $0 + byDisease[$1]!.terms.count }
            guard mostAnnotations <= Self.maximumAnnotations else {
                throw PhenotypeRankingError(.tooLarge, "the annotations, pooled, could be more than \(Self.maximumAnnotations)", format: .hpoa)
            }
        }
        let sources = Set(byDisease.keys.map(Self.source(of:))).sorted()
        guard sources.count <= Int(UInt8.max) else {
            throw PhenotypeRankingError(.noDiseases, "the annotations name more than 255 disease sources")
        }
        // An entry pools with the other entries of its group, one per other source.
        var pooled: [String: [String]] = [:]
        for group in groups {
            for id in group { pooled[id] = group.filter { $0 != id }.sorted() }
        }
        pooledWith = pooled
        // Each entry keeps its own share of a finding it gives; one only the others give takes the highest of theirs.
        let given = byDisease
        for (id, others) in pooled {
            let mine = given[id]!.terms
            for other in others {
                for (term, share) in given[other]!.terms where mine[term] == nil {
                    byDisease[id]!.terms[term, default: .nan].keepHigher(share)
                }
            }
        }

        let ids = byDisease.keys.sorted()
        diseaseIDs = ids
        diseaseNames = ids.map { byDisease[$0]!.name }
        diseaseSources = sources
        let sourcePosition = Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($1, UInt8($0)) })
        diseaseSourceIndex = ids.map { sourcePosition[Self.source(of: $0)]! }
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(ids.count + 1)
        var flat: [Int32] = []
        var shares: [Float] = []
        var isOwn: [Bool] = []
        var lookup: [String: Int32] = [:]
        lookup.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            let terms = byDisease[id]!.terms
            let mine = given[id]!.terms
            for term in terms.keys.sorted() {
                flat.append(term)
                shares.append(terms[term]!)
                isOwn.append(mine[term] != nil)
            }
            offsets.append(Int32(flat.count))
            lookup[id] = Int32(index)
        }
        annotationOffsets = offsets
        annotationTerms = flat
        annotationShares = shares
        annotationIsOwn = isOwn
        diseaseLookup = lookup

        // Propagated counts and information content.
        var counts = [Int32](repeating: 0, count: termCount)
        var stamp = [Int32](repeating: -1, count: termCount)
        var visits = 0
        for d in 0..<ids.count {
            for t in flat[Int(offsets[d])..<Int(offsets[d + 1])] {
                let ancestors = ontology.ancestorSlice(Int(t))
                visits += ancestors.count
                guard visits <= Self.maximumPropagationVisits else {
                    throw PhenotypeRankingError(
                        .tooLarge, "the annotations reach more than \(Self.maximumPropagationVisits) ancestors in all", format: .hpoa)
                }
                for a in ancestors where stamp[Int(a)] != Int32(d) {
                    stamp[Int(a)] = Int32(d)
                    counts[Int(a)] += 1
                }
            }
        }
        diseaseCountByTerm = counts
        var under = [Int32](repeating: 0, count: counts.reduce(0) { $0 + Int($1) })
        var underOffsets: [Int32] = [0]
        underOffsets.reserveCapacity(termCount + 1)
        for count in counts { underOffsets.append(underOffsets[underOffsets.count - 1] + count) }
        var filled = Array(underOffsets.dropLast())
        // In step with `under`: the share of each disease's patients expected to show the term, the highest of its
        // annotations at or below it (a patient showing a more specific finding shows the general one too), with an
        // annotation of no given frequency read once as a present finding reads it and once as an absent one does.
        var presentShares = [Float](repeating: 0, count: under.count)
        var absentShares = [Float](repeating: 0, count: under.count)
        var slot = [Int32](repeating: 0, count: termCount)
        var firstAncestors: [Int32] = []
        firstAncestors.reserveCapacity(under.count)
        var firstAncestorStarts: [Int32] = []
        firstAncestorStarts.reserveCapacity(flat.count + 1)
        for i in stamp.indices { stamp[i] = -1 }
        for d in 0..<ids.count {
            for position in Int(offsets[d])..<Int(offsets[d + 1]) {
                firstAncestorStarts.append(Int32(firstAncestors.count))
                let share = shares[position]
                let present = share.isNaN ? LikelihoodRatioScoring.unknownShareIfPresent : share
                let absent = share.isNaN ? LikelihoodRatioScoring.unknownShareIfAbsent : share
                for a in ontology.ancestorSlice(Int(flat[position])) {
                    if stamp[Int(a)] != Int32(d) {
                        stamp[Int(a)] = Int32(d)
                        slot[Int(a)] = filled[Int(a)]
                        under[Int(filled[Int(a)])] = Int32(d)
                        filled[Int(a)] += 1
                        firstAncestors.append(a)
                    }
                    let at = Int(slot[Int(a)])
                    presentShares[at] = max(presentShares[at], present)
                    absentShares[at] = max(absentShares[at], absent)
                }
            }
        }
        firstAncestorStarts.append(Int32(firstAncestors.count))
        self.firstAncestors = firstAncestors
        self.firstAncestorStarts = firstAncestorStarts
        diseasesUnderOffsets = underOffsets
        diseasesUnder = under
        // The background of each term: the share of patients showing it across all diseases, each disease weighing
        // the same (LIRICAL's background frequency); its logarithm divides every disease's share into a ratio.
        var background = [Double](repeating: 0, count: termCount)
        var logRatios = [Float](repeating: 0, count: under.count)
        for t in 0..<termCount {
            let range = Int(underOffsets[t])..<Int(underOffsets[t + 1])
            guard !range.isEmpty else { continue }
            let sum = presentShares[range].reduce(0.0) { $0 + Double($1) }
            background[t] = max(sum / Double(ids.count), LikelihoodRatioScoring.leastBackground)
            let logBackground = log(background[t])
            for at in range { logRatios[at] = Float(log(Double(presentShares[at])) - logBackground) }
        }
        presentBackground = background
        underLogRatios = logRatios
        underAbsentShares = absentShares
        let total = Double(ids.count)
        maxInformationContent = log(total)
        ic64 = counts.map { count in count == 0 ? log(total) : max(0, -log(Double(count) / total)) }
        ic = ic64.map(Float.init)
        samplingUniverse = (0..<termCount).compactMap { t in
            subtree[t] && t != root.int ? Int32(t) : nil
        }

        var hash = FNV1a64()
        hash.combine(UInt64(termCount))
        for (t, id) in ontology.termIDs.enumerated() {
            hash.combine(id)
            for p in ontology.parentSlice(t) { hash.combine(UInt64(p)) }
        }
        hash.combine(UInt64(root.rawValue))
        for (d, id) in ids.enumerated() {
            hash.combine(id)
            for t in flat[Int(offsets[d])..<Int(offsets[d + 1])] { hash.combine(UInt64(t)) }
        }
        fingerprint = hash.value
    }

    /// The knowledge base `nulls` were drawn from: pooled by the current rule, as every import builds it now, or by the
    /// rule a release was imported under, which it keeps until it is imported again (its null distributions describe
    /// the diseases as that rule pooled them). With none matching, the current one, which the ranker refuses.
    public static func matching(
        _ nulls: [NullDistribution], ontology: PhenotypeOntology, annotations: HPOAnnotationSet
    ) throws(PhenotypeRankingError) -> PhenotypeKnowledgeBase {
        let current = try PhenotypeKnowledgeBase(ontology: ontology, annotations: annotations)
        guard let drawn = nulls.first?.fingerprint, drawn != current.fingerprint else { return current }
        for earlier in SourcePooling.allCases.reversed() where earlier != .current {
            let kb = try PhenotypeKnowledgeBase(ontology: ontology, annotations: annotations, pooling: earlier)
            if kb.fingerprint == drawn { return kb }
        }
        return current
    }

    // MARK: Accessors

    /// The index of a disease by its identifier (e.g. `OMIM:154700`).
    public func diseaseIndex(of id: String) -> Int? {
        diseaseLookup[id].map(Int.init)
    }

    /// The entries of different sources that name the same disease under `rule`, each group sorted, the groups by
    /// their first id.
    ///
    /// OMIM and Orphanet describe many of the same diseases, each listing its own selection of the findings, and a
    /// patient's findings are more often among the two together than among either's (docs/clinical-rules.md §11).
    /// Names are compared as the set of their words, case and punctuation ignored, so that OMIM's inverted
    /// "Apnea, central sleep" is Orphanet's "Central sleep apnea". Under `.sameDistinctiveWords`, the entries left
    /// alone are then compared without the words that mostly say how a name is written (`namingWords`), so that OMIM's
    /// "Spastic paraplegia 76, autosomal recessive" is Orphanet's "Autosomal recessive spastic paraplegia type 76". Such
    /// a group is formed only where none of its names was grouped by its full name, so Orphanet's "Classic
    /// phenylketonuria" does not join OMIM's and Orphanet's "Phenylketonuria". A group holds one entry per source: a
    /// source gives one disease one entry, so two of its entries with the same words are two diseases, and none of them
    /// is pooled. `.separate` groups nothing.
    static func sameDiseaseGroups(_ names: [String: String], by rule: SourcePooling = .current) -> [[String]] {
        guard rule != .separate else { return [] }
        func groups(words: ([String]) -> [String]) -> [[String]] {
            var byWords: [[String]: [String]] = [:]
            for (id, name) in names {
                let words = words(nameWords(name))
                // A name without a word names nothing to compare.
                if !words.isEmpty { byWords[words, default: []].append(id) }
            }
            // One entry per source: where a source has two entries of the same words, they are two diseases, and which
            // of them another source's entry is cannot be told, so none of them is pooled.
            return byWords.values.filter { ids in ids.count > 1 && Set(ids.map(source(of:))).count == ids.count }.map { $0.sorted() }
        }
        var found = groups { $0 }
        if rule == .sameDistinctiveWords {
            let grouped = Set(found.joined())
            found += groups { $0.filter { !namingWords.contains($0) } }.filter { $0.allSatisfy { !grouped.contains($0) } }
        }
        return found.sorted { $0[0] < $1[0] }
    }

    /// A disease name as the sorted list of its words: lowercased runs of letters and digits.
    static func nameWords(_ name: String) -> [String] {
        name.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).sorted()
    }

    /// Words that mostly say how a disease name is written, not which disease it is: OMIM writes "Spastic paraplegia 76"
    /// and "Mucolipidosis IV" where Orphanet writes "… type 76" and "Mucolipidosis type IV"; OMIM inverts "Acyl-CoA
    /// dehydrogenase, short-chain, deficiency of". "Classic" names a form: where one source lists only the classic form
    /// ("Classic galactosemia") and the other only the disease ("Galactosemia"), the two are pooled
    /// (docs/clinical-rules.md, decisions for clinical review).
    static let namingWords: Set<String> = ["type", "form", "classic", "classical", "of"]

    /// The source of a disease id: its prefix (`OMIM:154700` → `OMIM`).
    public static func source(of diseaseID: String) -> String {
        diseaseID.firstIndex(of: ":").map { String(diseaseID[..<$0]) } ?? diseaseID
    }

    /// Which diseases belong to `sources` (nil: every disease, no mask).
    func sourceMask(_ sources: Set<String>?) -> [Bool]? {
        guard let sources, !diseaseSources.allSatisfy(sources.contains) else { return nil }
        let allowed = diseaseSources.map(sources.contains)
        return diseaseSourceIndex.map { allowed[Int($0)] }
    }

    /// The direct phenotype annotations of a disease (after id resolution), sorted by index.
    public func annotations(ofDisease index: Int) -> [TermIndex] {
        annotationSlice(index).map(TermIndex.init)
    }

    func annotationSlice(_ d: Int) -> ArraySlice<Int32> {
        annotationTerms[Int(annotationOffsets[d])..<Int(annotationOffsets[d + 1])]
    }

    /// The frequency shares of a disease's annotations, in the order of `annotationSlice` (NaN: none given).
    func shareSlice(_ d: Int) -> ArraySlice<Float> {
        annotationShares[Int(annotationOffsets[d])..<Int(annotationOffsets[d + 1])]
    }

    /// How often disease `d` is annotated to show the term at index `t`: the share the annotation file gives (see
    /// `AnnotationFrequency`), nil when it gives none or the disease has no such direct annotation.
    public func annotatedShare(disease d: Int, term t: TermIndex) -> Double? {
        let terms = annotationSlice(d)
        guard let i = terms.firstIndex(of: t.rawValue) else { return nil }
        let share = annotationShares[i]
        return share.isNaN ? nil : Double(share)
    }

    /// `IC(t) = −ln(fraction of diseases annotated with t or a descendant)`, in full precision.
    public func informationContent(of term: TermIndex) -> Double { ic64[term.int] }

    /// Whether the term lies under the phenotype root (or is the root).
    public func isPhenotype(_ term: TermIndex) -> Bool { inPhenotypeSubtree[term.int] }

    /// The terms random queries are drawn from (current terms strictly below the phenotype root).
    public var samplingUniverseSize: Int { samplingUniverse.count }

    /// The most informative common ancestor (MICA) of two terms and its information content
    /// (Resnik similarity); `nil` if the terms share no ancestor. Ties go to the lower index.
    public func mostInformativeCommonAncestor(
        _ a: TermIndex, _ b: TermIndex
    ) -> (term: TermIndex, informationContent: Double)? {
        let (term, value) = mica64(a.rawValue, b.rawValue)
        return term < 0 ? nil : (TermIndex(term), value)
    }

    /// Resnik similarity `sim(a, b) = IC(MICA(a, b))` (0 without a common ancestor).
    public func similarity(_ a: TermIndex, _ b: TermIndex) -> Double {
        mostInformativeCommonAncestor(a, b)?.informationContent ?? 0
    }

    func mica(_ a: Int32, _ b: Int32) -> (Int32, Float) { mica(a, b, ic) }

    /// `mica` with the information content in full precision: what reported scores and explanations use.
    func mica64(_ a: Int32, _ b: Int32) -> (Int32, Double) { mica(a, b, ic64) }

    private func mica<Value: BinaryFloatingPoint>(_ a: Int32, _ b: Int32, _ ic: [Value]) -> (Int32, Value) {
        let x = ontology.ancestorSlice(Int(a))
        let y = ontology.ancestorSlice(Int(b))
        var i = x.startIndex
        var j = y.startIndex
        var best: Int32 = -1
        var bestIC: Value = -1
        while i < x.endIndex, j < y.endIndex {
            if x[i] == y[j] {
                let value = ic[Int(x[i])]
                if value > bestIC {
                    best = x[i]
                    bestIC = value
                }
                i += 1
                j += 1
            } else if x[i] < y[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return (best, max(bestIC, 0))
    }

    /// A disease's annotated terms and every ancestor, as a mark array over all terms.
    func markClosure(ofDisease d: Int, in marks: inout [Bool]) {
        for t in annotationSlice(d) {
            for a in ontology.ancestorSlice(Int(t)) { marks[Int(a)] = true }
        }
    }
}

extension Float {
    /// Keeps the higher of two shares, a known one over NaN (none given).
    fileprivate mutating func keepHigher(_ other: Float) {
        if isNaN || other > self { self = other.isNaN ? self : other }
    }
}
