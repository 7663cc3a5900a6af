import CaretideSchemas
import Foundation

/// HL7 version 2 messages in ER7 (the pipe-delimited encoding), as lab systems send results: `ORU^R01` with `MSH`,
/// `PID`, `OBR` and `OBX` segments (HL7 v2.5.1, chapters 2 and 7). Pure: text in, values out.
///
/// - Segments end with a carriage return (HL7 v2.5.1 §2.5.1); a line feed after it, or instead of it, is accepted
///   too, as files and HTTP clients often add one.
/// - `MSH-1` is the field separator itself and `MSH-2` the other encoding characters (component, repetition, escape,
///   subcomponent), so a message may use its own; `\F\ \S\ \T\ \R\ \E\` are decoded in the text read (§2.7).
enum HL7v2 {
    struct Delimiters: Equatable {
        var field: Character = "|"
        var component: Character = "^"
        var repetition: Character = "~"
        var escape: Character = "\\"
        var subcomponent: Character = "&"
    }

    /// One segment: its id and its fields, numbered as HL7 numbers them (`field(3)` is `PID-3`).
    struct Segment {
        let id: String
        /// Raw fields; for MSH, index 1 is MSH-1 (the field separator) and index 2 MSH-2.
        let fields: [String]
        let delimiters: Delimiters

        /// The raw text of field `number`, "" when absent.
        func raw(_ number: Int) -> String { number < fields.count ? fields[number] : "" }

        /// Component `component` (1-based) of the first repetition of field `number`, unescaped; "" when absent.
        func value(_ number: Int, component: Int = 1) -> String {
            let firstRepetition = raw(number).split(separator: delimiters.repetition, omittingEmptySubsequences: false).first ?? ""
            let components = firstRepetition.split(separator: delimiters.component, omittingEmptySubsequences: false)
            guard component - 1 < components.count else { return "" }
            let firstSubcomponent = components[component - 1].split(separator: delimiters.subcomponent, omittingEmptySubsequences: false).first ?? ""
            return HL7v2.unescape(String(firstSubcomponent), delimiters)
        }
    }

    struct Message {
        let segments: [Segment]
        var delimiters: Delimiters { segments.first?.delimiters ?? Delimiters() }
        var header: Segment? { segments.first { $0.id == "MSH" } }
        /// MSH-9: e.g. ORU^R01.
        var messageType: String { "\(header?.value(9) ?? "")^\(header?.value(9, component: 2) ?? "")" }
        /// MSH-10, echoed in the acknowledgement's MSA-2.
        var controlID: String { header?.value(10) ?? "" }
    }

    struct ParseError: Error, Equatable {
        let reason: String
    }

    static func parse(_ text: String) throws(ParseError) -> Message {
        // PostgreSQL's text cannot hold U+0000 and ER7 never needs it: refused before anything is read.
        guard !text.utf8.contains(0) else { throw ParseError(reason: "the message holds the NUL character") }
        let lines = text.split(whereSeparator: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }).map(String.init).filter { !$0.isEmpty }
        guard let first = lines.first, first.hasPrefix("MSH"), first.count >= 8 else {
            throw ParseError(reason: "the message does not start with an MSH segment")
        }
        let characters = Array(first)
        var delimiters = Delimiters()
        delimiters.field = characters[3]
        let encoding = Array(first.dropFirst(4).prefix { $0 != delimiters.field })
        guard encoding.count >= 4, Set(encoding + [delimiters.field]).count == encoding.count + 1 else {
            throw ParseError(reason: "MSH-2 must give four distinct encoding characters")
        }
        delimiters.component = encoding[0]
        delimiters.repetition = encoding[1]
        delimiters.escape = encoding[2]
        delimiters.subcomponent = encoding[3]
        var segments: [Segment] = []
        for line in lines {
            var fields = line.split(separator: delimiters.field, omittingEmptySubsequences: false).map(String.init)
            let id = fields.first ?? ""
            guard id.count == 3, id.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw ParseError(reason: "segment \(segments.count + 1) has no valid segment id")
            }
            // MSH-1 is the separator that split the line: put it back so MSH fields keep their numbers.
            if id == "MSH" { fields.insert(String(delimiters.field), at: 1) }
            segments.append(Segment(id: id, fields: fields, delimiters: delimiters))
        }
        return Message(segments: segments)
    }

    /// §2.7.4: the escape sequences for the delimiters; any other escape (formatting, hexadecimal) is kept as written.
    static func unescape(_ text: String, _ delimiters: Delimiters) -> String {
        guard text.contains(delimiters.escape) else { return text }
        var output = ""
        var rest = Substring(text)
        while let start = rest.firstIndex(of: delimiters.escape) {
            output += rest[..<start]
            let afterStart = rest.index(after: start)
            guard let end = rest[afterStart...].firstIndex(of: delimiters.escape) else {
                output += rest[start...]
                return output
            }
            switch rest[afterStart..<end] {
            case "F": output.append(delimiters.field)
            case "S": output.append(delimiters.component)
            case "T": output.append(delimiters.subcomponent)
            case "R": output.append(delimiters.repetition)
            case "E": output.append(delimiters.escape)
            default: output += rest[start...end]
            }
            rest = rest[rest.index(after: end)...]
        }
        return output + rest
    }

    /// `escape`'s inverse, for text written into an acknowledgement.
    static func escape(_ text: String, _ delimiters: Delimiters = Delimiters()) -> String {
        var output = ""
        for character in text {
            switch character {
            case delimiters.escape: output += "\(delimiters.escape)E\(delimiters.escape)"
            case delimiters.field: output += "\(delimiters.escape)F\(delimiters.escape)"
            case delimiters.component: output += "\(delimiters.escape)S\(delimiters.escape)"
            case delimiters.subcomponent: output += "\(delimiters.escape)T\(delimiters.escape)"
            case delimiters.repetition: output += "\(delimiters.escape)R\(delimiters.escape)"
            case "\r", "\n": output += " "
            default: output.append(character)
            }
        }
        return output
    }

    /// The DTM data type (§2.A.22): `YYYY[MM[DD[HH[MM[SS[.S[S[S[S]]]]]]]]][+/-ZZZZ]`. A time without an offset is taken
    /// as UTC (the sender's local time is not known here); anything less precise than a minute is refused, as is an
    /// impossible date.
    static func timestamp(_ text: String) -> Date? {
        var digits = Substring(text)
        var offsetSeconds = 0
        if let sign = digits.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = digits[digits.index(after: sign)...]
            guard zone.count == 4, let hours = Int(zone.prefix(2)), let minutes = Int(zone.suffix(2)), hours <= 14, minutes < 60 else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (digits[sign] == "-" ? -1 : 1)
            digits = digits[..<sign]
        }
        var fraction = ""
        if let dot = digits.firstIndex(of: ".") {
            fraction = String(digits[digits.index(after: dot)...])
            digits = digits[..<dot]
        }
        guard [12, 14].contains(digits.count), digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), fraction.allSatisfy(\.isNumber),
            fraction.count <= 4
        else { return nil }
        let text = Array(digits)
        func number(_ from: Int, _ count: Int) -> String { String(text[from..<from + count]) }
        let seconds = digits.count == 14 ? number(12, 2) : "00"
        let milliseconds = String((fraction + "000").prefix(3))
        let rfc3339 = "\(number(0, 4))-\(number(4, 2))-\(number(6, 2))T\(number(8, 2)):\(number(10, 2)):\(seconds).\(milliseconds)Z"
        return Timestamp.parse(rfc3339).map { $0.addingTimeInterval(-Double(offsetSeconds)) }
    }
}
