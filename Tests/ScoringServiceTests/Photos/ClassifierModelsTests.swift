import CaretideRuntime
import Testing

@testable import ScoringService

/// `CLASSIFIER_MODELS`: the classifier models whose answers about skin photos are accepted, each by name and version.
@Suite struct ClassifierModelsTests {
    static func problems(_ text: String) -> [String] {
        do throws(InvalidConfiguration) {
            _ = try ClassifierModels.fromEnvironment(["CLASSIFIER_MODELS": text])
            return []
        } catch {
            return error.problems
        }
    }

    @Test("unset or empty, no model is registered and every answer is refused")
    func none() throws {
        #expect(try ClassifierModels.fromEnvironment([:]) == ClassifierModels())
        let empty = try ClassifierModels.fromEnvironment(["CLASSIFIER_MODELS": ""])
        #expect(empty.models.isEmpty && !empty.contains(name: "st-mary-cnn", version: "2.4.1"))
    }

    @Test("each name@version is registered, spaces around it aside; only that exact version of that model is accepted")
    func registered() throws {
        let models = try ClassifierModels.fromEnvironment(["CLASSIFIER_MODELS": " st-mary-cnn@2.4.1 ,derm-net@1.0,st-mary-cnn@2.4.1"])
        let expected: Set<ClassifierModels.Model> = [.init(name: "st-mary-cnn", version: "2.4.1"), .init(name: "derm-net", version: "1.0")]
        #expect(models.models == expected)
        #expect(models.contains(name: "st-mary-cnn", version: "2.4.1") && models.contains(name: "derm-net", version: "1.0"))
        #expect(!models.contains(name: "st-mary-cnn", version: "2.4.2"))
        #expect(!models.contains(name: "st-mary-cnn", version: "2.4"))
        #expect(!models.contains(name: "St-Mary-CNN", version: "2.4.1"))
        #expect(!models.contains(name: "derm-net", version: "2.4.1"))
    }

    @Test("an entry without exactly one @, or with an empty name or version, stops the service naming that entry")
    func refused() {
        for entry in ["st-mary-cnn", "st-mary-cnn@2.4.1@b", "@2.4.1", "st-mary-cnn@"] {
            #expect(
                Self.problems("derm-net@1.0," + entry) == [
                    "CLASSIFIER_MODELS must list name@version entries separated by commas, e.g. st-mary-cnn@2.4.1; \(entry) is not one"
                ], "\(entry)")
        }
        #expect(Self.problems("derm-net@1.0") == [])
    }
}
