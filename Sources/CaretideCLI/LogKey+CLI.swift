import CaretideRuntime

/// The keys of the operator commands' own log lines (`caretide dev`).
extension LogKey {
    static let bootstrap = "bootstrap"
    static let jwks = "jwks"
}
