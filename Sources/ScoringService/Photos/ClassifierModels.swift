public import CaretideRuntime
import Foundation

/// The classifier models whose answers scoring-service accepts (`CLASSIFIER_MODELS`: `name@version`, comma-separated),
/// each a hospital's validated model its operator has registered. An answer from any other model, or another version
/// of one, is dead-lettered: a result Caretide tells a patient about must come from a model someone vouched for.
public struct ClassifierModels: Sendable, Equatable {
    public struct Model: Sendable, Hashable {
        public let name: String
        public let version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public let models: Set<Model>

    public init(_ models: Set<Model> = []) {
        self.models = models
    }

    public func contains(name: String, version: String) -> Bool { models.contains(Model(name: name, version: version)) }

    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidConfiguration) -> ClassifierModels {
        guard let text = environment["CLASSIFIER_MODELS"], !text.isEmpty else { return ClassifierModels() }
        var models: Set<Model> = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let parts = entry.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw InvalidConfiguration(problems: [
                    "CLASSIFIER_MODELS must list name@version entries separated by commas, e.g. st-mary-cnn@2.4.1; \(entry) is not one"
                ])
            }
            models.insert(Model(name: String(parts[0]), version: String(parts[1])))
        }
        return ClassifierModels(models)
    }
}
