import CaretideRuntime

extension LogKey {
    static let releaseID = "releaseId"
    static let updateID = "updateId"
    static let terms = "terms"
    static let diseases = "diseases"
    static let pooling = "pooling"
    static let nullSeconds = "nullSeconds"
    static let accuracySeconds = "accuracySeconds"
}
