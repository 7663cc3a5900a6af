import Foundation

/// An RFC 6901 JSON Pointer, used to name the failing field of a request or event ("/payload/systolic").
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible, Comparable {
    public private(set) var tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses the text form, "/a/b~1c" → ["a", "b/c"].
    public init(parsing text: String) {
        self.init(
            tokens: text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            })
    }

    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// `body` with `token` appended to this pointer, which is as it was afterwards: a walk down a document extends one
    /// pointer in place instead of copying it for every member (a schema check of a valid event copied its path for
    /// each member it looked at).
    mutating func descending<Result>(into token: String, _ body: (inout JSONPointer) -> Result) -> Result {
        tokens.append(token)
        defer { tokens.removeLast() }
        return body(&self)
    }

    public var description: String {
        tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }

    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool { lhs.description < rhs.description }
}
