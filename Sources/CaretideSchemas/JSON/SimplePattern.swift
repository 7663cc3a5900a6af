/// A schema `pattern` made only of character classes and literals, each with a count, and groups of them with a count:
/// `^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`, `^HP:[0-9]{7}$`, `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, `\S`, the event type's
/// `^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$`. Most of Caretide's patterns are of this kind, and every event and request
/// checks one or more of them (the patient id at least, and every consumed event its type), so they are matched here,
/// without the allocations of `NSRegularExpression`, which showed in every consumer's profile (BENCHMARKS.md); anything else (alternatives, nested groups, look-arounds) returns nil from
/// `init` and stays with `NSRegularExpression`. `SimplePatternTests` holds the two to
/// the same answers for every pattern the bundled schemas use.
struct SimplePattern: Sendable {
    /// One class or literal and how often it may repeat.
    struct Atom: Sendable {
        let accepts: ScalarClass
        let minimum: Int
        let maximum: Int?
        /// `accepts` for each ASCII scalar, one bit each (0–63, 64–127): nearly every scalar matched is ASCII, and a
        /// bit test costs less than searching the class's ranges.
        private let ascii: (low: UInt64, high: UInt64)

        init(accepts: ScalarClass, minimum: Int, maximum: Int?) {
            self.accepts = accepts
            self.minimum = minimum
            self.maximum = maximum
            var ascii: (low: UInt64, high: UInt64) = (0, 0)
            for value in UInt32(0)..<128 where accepts.contains(Unicode.Scalar(UInt8(value))) {
                if value < 64 { ascii.low |= 1 << UInt64(value) } else { ascii.high |= 1 << UInt64(value - 64) }
            }
            self.ascii = ascii
        }

        /// Whether the class accepts the scalar of this value (a valid scalar value).
        func accepts(_ value: UInt32) -> Bool {
            if value < 64 { return ascii.low & (1 << UInt64(value)) != 0 }
            if value < 128 { return ascii.high & (1 << UInt64(value - 64)) != 0 }
            return Unicode.Scalar(value).map(accepts.contains) ?? false
        }
    }

    /// The scalars a class or literal accepts.
    enum ScalarClass: Sendable {
        /// Inclusive ranges of scalar values; negated for `[^...]`.
        case ranges([ClosedRange<UInt32>], negated: Bool)
        /// ICU's `\S`: anything but `[\t\n\f\r\p{Z}]` (ICU's definition of `\s`, which `NSRegularExpression` uses).
        case nonWhitespace

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .ranges(let ranges, let negated):
                return ranges.contains { $0.contains(scalar.value) } != negated
            case .nonWhitespace:
                switch scalar.value {
                case 0x09, 0x0A, 0x0C, 0x0D: return false
                default:
                    switch scalar.properties.generalCategory {
                    case .spaceSeparator, .lineSeparator, .paragraphSeparator: return false
                    default: return true
                    }
                }
            }
        }
    }

    /// One part of the pattern: an atom, or a group of atoms `(...)` with a count of its own, as in the envelope's
    /// event type `^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$`, which every consumed event checks.
    enum Part: Sendable {
        case atom(Atom)
        case group([Atom], minimum: Int, maximum: Int?)
    }

    let parts: [Part]
    let anchoredAtStart: Bool
    let anchoredAtEnd: Bool

    /// The pattern's parts, or nil if it uses anything beyond classes, literals, groups of them (not nested, without
    /// alternatives), counts and the two anchors.
    init?(_ source: String) {
        var scalars = Array(source.unicodeScalars)[...]
        anchoredAtStart = scalars.first == "^"
        if anchoredAtStart { scalars = scalars.dropFirst() }
        // A `$` at the very end anchors, unless it is escaped (`\$`): an odd count of backslashes before it.
        let backslashesBeforeEnd = scalars.dropLast().reversed().prefix { $0 == "\\" }.count
        anchoredAtEnd = scalars.last == "$" && backslashesBeforeEnd % 2 == 0
        if anchoredAtEnd { scalars = scalars.dropLast() }
        var parts: [Part] = []
        while let first = scalars.first {
            if first == "(" {
                // `(?:`, `(?i)` and the like are not plain groups.
                guard scalars.dropFirst().first != "?", let (atoms, afterGroup) = Self.groupAtoms(scalars.dropFirst()),
                    let (minimum, maximum, rest) = Self.count(afterGroup)
                else { return nil }
                parts.append(.group(atoms, minimum: minimum, maximum: maximum))
                scalars = rest
            } else {
                guard let (atom, rest) = Self.atom(scalars) else { return nil }
                parts.append(.atom(atom))
                scalars = rest
            }
        }
        self.parts = parts
    }

    /// A group's atoms after its `(`, and what follows its `)`; nil for anything else (an alternative, a group within
    /// it, no `)`).
    private static func groupAtoms(_ scalars: ArraySlice<Unicode.Scalar>) -> ([Atom], ArraySlice<Unicode.Scalar>)? {
        var rest = scalars
        var atoms: [Atom] = []
        while let first = rest.first {
            if first == ")" { return (atoms, rest.dropFirst()) }
            guard let (atom, after) = atom(rest) else { return nil }
            atoms.append(atom)
            rest = after
        }
        return nil
    }

    /// One class or literal with its count, and what follows it; nil for anything else.
    private static func atom(_ scalars: ArraySlice<Unicode.Scalar>) -> (Atom, ArraySlice<Unicode.Scalar>)? {
        guard let first = scalars.first else { return nil }
        var rest = scalars.dropFirst()
        let accepts: ScalarClass
        switch first {
        case "[":
            guard let (parsed, after) = bracket(rest) else { return nil }
            accepts = parsed
            rest = after
        case "\\":
            guard let escaped = rest.first else { return nil }
            rest = rest.dropFirst()
            switch escaped {
            case "S": accepts = .nonWhitespace
            case _ where isEscapableLiteral(escaped): accepts = .ranges([escaped.value...escaped.value], negated: false)
            default: return nil
            }
        case _ where isPlainLiteral(first): accepts = .ranges([first.value...first.value], negated: false)
        default: return nil  // `(`, `)`, `|`, `.`, a count with nothing to count, anything not ASCII
        }
        guard let (minimum, maximum, after) = count(rest) else { return nil }
        return (Atom(accepts: accepts, minimum: minimum, maximum: maximum), after)
    }

    /// True if the value matches; unanchored ends match anywhere, as JSON Schema's (ECMA-262) patterns do.
    func matches(_ value: String) -> Bool {
        // ASCII text (ids, codes, event types: nearly every value checked) is matched on its own bytes, where they lie;
        // anything else on its scalars' values.
        let onBytes = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            bytes.allSatisfy { $0 < 0x80 } ? matches(scalars: bytes) : nil
        }
        return (onBytes ?? nil) ?? matches(scalars: value.unicodeScalars.map(\.value))
    }

    /// `scalars`: the value's scalar values, in order.
    private func matches<Text: RandomAccessCollection<Element>, Element: FixedWidthInteger>(scalars: Text) -> Bool where Text.Index == Int {
        var failed = Set<State>()
        let starts = anchoredAtStart ? 0...0 : 0...scalars.count
        return starts.contains { match(State(part: 0, position: $0, repetitions: 0), in: scalars, failed: &failed) }
    }

    /// A point of the search: the parts from `part` on, from `position`, with `repetitions` of a group part done.
    private struct State: Hashable {
        let part: Int
        let position: Int
        let repetitions: Int
    }

    /// Whether the parts from `start` on match, trying the longest run of each atom first. States that failed are
    /// remembered (`failed`), so none is tried twice: at most parts × length × repetitions told apart (up to a group's
    /// minimum, or its maximum) states, each trying at most as many ends as the value is long. Polynomial whatever the
    /// pattern and value, never the exponential backtracking of a general engine; the schemas' groups start with a
    /// delimiter (`\.`, `-`), so a repetition ends at the next one and each state tries few ends.
    ///
    /// Depth first, on a stack of its own rather than the thread's: a value may repeat a group hundreds of thousands of
    /// times, and a call per repetition would overflow the thread's stack, a crash one message could cause.
    private func match<Text: RandomAccessCollection<Element>, Element: FixedWidthInteger>(
        _ start: State, in scalars: Text, failed: inout Set<State>
    ) -> Bool where Text.Index == Int {
        var trials: [Trial] = []
        var candidate: State? = start
        while true {
            if let state = candidate {
                candidate = nil
                if state.part == parts.count {
                    if !anchoredAtEnd || state.position == scalars.count { return true }
                } else if failed.isEmpty || !failed.contains(state) {
                    // Asked only once something failed: hashing a state for an empty set cost more than the rest.
                    trials.append(trial(of: state, in: scalars))
                }
            }
            guard !trials.isEmpty else { return false }
            // The innermost trial's next way on; with none left, it failed.
            if let next = nextState(after: &trials[trials.count - 1]) {
                candidate = next
            } else {
                failed.insert(trials.removeLast().state)
            }
        }
    }

    /// A state being tried, and which of the states it may go on to comes next.
    private struct Trial {
        let state: State
        /// An atom's next length to try, counting down to its minimum; a group's next end in `ends`, or -1 while what
        /// follows the group is still to be tried.
        var next: Int
        /// A group's ends of one more repetition, the farthest first.
        var ends: [Int] = []
    }

    private func trial<Text: RandomAccessCollection<Element>, Element: FixedWidthInteger>(
        of state: State, in scalars: Text
    ) -> Trial where Text.Index == Int {
        switch parts[state.part] {
        case .atom(let atom):
            return Trial(state: state, next: Self.run(of: atom, from: state.position, in: scalars))
        case .group(let atoms, let minimum, let maximum):
            let repeats = maximum.map { state.repetitions < $0 } ?? true
            return Trial(
                state: state, next: state.repetitions >= minimum ? -1 : 0,
                ends: repeats ? Self.ends(of: atoms, from: state.position, in: scalars) : [])
        }
    }

    private func nextState(after trial: inout Trial) -> State? {
        let state = trial.state
        switch parts[state.part] {
        case .atom(let atom):
            guard trial.next >= atom.minimum else { return nil }
            defer { trial.next -= 1 }
            return State(part: state.part + 1, position: state.position + trial.next, repetitions: 0)
        case .group(_, let minimum, let maximum):
            if trial.next == -1 {
                trial.next = 0
                return State(part: state.part + 1, position: state.position, repetitions: 0)
            }
            // Once the minimum is reached, further repetitions are told apart only up to a maximum; an empty one could
            // repeat for ever and is taken only on the way to the minimum.
            let repetitions = maximum == nil ? min(state.repetitions + 1, minimum) : state.repetitions + 1
            while trial.next < trial.ends.count {
                let end = trial.ends[trial.next]
                trial.next += 1
                if end > state.position || state.repetitions < minimum { return State(part: state.part, position: end, repetitions: repetitions) }
            }
            return nil
        }
    }

    /// Every position at which `atoms`, matched in order from `position`, can end: the farthest first, as an atom's
    /// longest run is tried first, so that a match found at once leaves nothing to remember.
    private static func ends<Text: RandomAccessCollection<Element>, Element: FixedWidthInteger>(
        of atoms: [Atom], from position: Int, in scalars: Text
    ) -> [Int] where Text.Index == Int {
        // Ascending and distinct: the positions an atom reaches from each start form a range, and ranges from
        // ascending starts begin in ascending order, so they merge in one pass, without hashing.
        var positions = [position]
        for atom in atoms {
            var reached: [Int] = []
            for start in positions {
                let run = run(of: atom, from: start, in: scalars)
                guard run >= atom.minimum else { continue }
                let from = max(start + atom.minimum, (reached.last ?? start + atom.minimum - 1) + 1)
                if from <= start + run { reached.append(contentsOf: from...(start + run)) }
            }
            positions = reached
        }
        return positions.reversed()
    }

    /// How many scalars from `position` on the atom accepts, up to its maximum.
    private static func run<Text: RandomAccessCollection<Element>, Element: FixedWidthInteger>(
        of atom: Atom, from position: Int, in scalars: Text
    ) -> Int where Text.Index == Int {
        var run = 0
        let longest = atom.maximum.map { min($0, scalars.count - position) } ?? (scalars.count - position)
        while run < longest, atom.accepts(UInt32(truncatingIfNeeded: scalars[position + run])) { run += 1 }
        return run
    }

    /// `[...]` after its opening bracket: ranges and single scalars, `^` first to negate; nil for anything else
    /// (nested classes, escapes other than literals, POSIX names).
    private static func bracket(_ scalars: ArraySlice<Unicode.Scalar>) -> (ScalarClass, ArraySlice<Unicode.Scalar>)? {
        var rest = scalars
        let negated = rest.first == "^"
        if negated { rest = rest.dropFirst() }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while let scalar = rest.first {
            rest = rest.dropFirst()
            if scalar == "]" && !first { return (.ranges(ranges, negated: negated), rest) }
            first = false
            var low = scalar
            if scalar == "\\" {
                guard let escaped = rest.first, isEscapableLiteral(escaped) else { return nil }
                low = escaped
                rest = rest.dropFirst()
            } else if !isPlainInBracket(scalar) {
                // `[`, `&&`, `$` and the like have meanings of their own inside ICU's classes.
                return nil
            }
            // `a-z` is a range; a `-` first, last or after a range is itself.
            if rest.first == "-", let high = rest.dropFirst().first, high != "]" {
                guard isPlainInBracket(high), high != "-", low.value <= high.value else { return nil }
                ranges.append(low.value...high.value)
                rest = rest.dropFirst(2)
            } else {
                ranges.append(low.value...low.value)
            }
        }
        return nil
    }

    /// A count after an atom: none (exactly once), `?`, `*`, `+`, `{n}` or `{m,n}`; nil for `{m,}` written oddly, a
    /// lazy or possessive count, or anything unreadable.
    private static func count(_ scalars: ArraySlice<Unicode.Scalar>) -> (Int, Int?, ArraySlice<Unicode.Scalar>)? {
        var rest = scalars
        let counted: (Int, Int?)
        switch rest.first {
        case "?": counted = (0, 1)
        case "*": counted = (0, nil)
        case "+": counted = (1, nil)
        case "{":
            guard let close = rest.firstIndex(of: "}") else { return nil }
            let inside = String(String.UnicodeScalarView(rest[rest.index(after: rest.startIndex)..<close]))
            let bounds = inside.split(separator: ",", omittingEmptySubsequences: false)
            guard bounds.count == 1 || bounds.count == 2, let minimum = Int(bounds[0]) else { return nil }
            let maximum: Int? = bounds.count == 1 ? minimum : (bounds[1].isEmpty ? nil : Int(bounds[1]))
            if bounds.count == 2, !bounds[1].isEmpty, maximum == nil { return nil }
            if let maximum, maximum < minimum { return nil }
            counted = (minimum, maximum)
            rest = rest[close...]
        default: return (1, 1, rest)
        }
        rest = rest.dropFirst()
        // `??`, `*+` and the like are lazy or possessive: not read here.
        if let next = rest.first, next == "?" || next == "+" { return nil }
        return (counted.0, counted.1, rest)
    }

    /// Scalars that stand for themselves outside a class: ASCII letters, digits and punctuation without a meaning.
    private static func isPlainLiteral(_ scalar: Unicode.Scalar) -> Bool {
        isASCIIAlphanumeric(scalar) || "-:_/@,=%'\"!<>~#; ".unicodeScalars.contains(scalar)
    }

    /// Scalars that stand for themselves inside a class (besides `-` between two of them, a range).
    private static func isPlainInBracket(_ scalar: Unicode.Scalar) -> Bool {
        isASCIIAlphanumeric(scalar) || "-._:/@,+#~".unicodeScalars.contains(scalar)
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// Punctuation that an escape turns into itself.
    private static func isEscapableLiteral(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F && !isASCIIAlphanumeric(scalar)
    }
}
