import Synchronization
public import Testing

/// Stops every test stack a test started and did not stop, whether the test passed, failed an expectation or threw,
/// so a failing test leaves no service running in the test process (the shape of Hummingbird's test framework,
/// which runs the application around the test's closure). Put `.stoppingStacks` on a suite.
public struct StoppingStacksTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let registry = StackRegistry()
        try await StackRegistry.$current.withValue(registry) {
            do {
                try await function()
            } catch {
                await registry.stopRemaining()
                throw error
            }
            await registry.stopRemaining()
        }
    }
}

extension Trait where Self == StoppingStacksTrait {
    public static var stoppingStacks: StoppingStacksTrait { StoppingStacksTrait() }
}

/// The stacks started by the current test.
final class StackRegistry: Sendable {
    @TaskLocal static var current: StackRegistry?

    private let stacks = Mutex<[TestStack]>([])

    func add(_ stack: TestStack) { stacks.withLock { $0.append(stack) } }

    func stopRemaining() async {
        let remaining = stacks.withLock { stacks in
            defer { stacks.removeAll() }
            return stacks
        }
        for stack in remaining where !stack.isShutDown { try? await stack.shutdown() }
    }
}
