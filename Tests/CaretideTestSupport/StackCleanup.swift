import Synchronization
public import Testing

/// Stops every test stack a test started and did not stop, and every private cluster (`TestPostgres.privateCluster`),
/// whether the test passed, failed an expectation, threw or was cancelled, so a failing test leaves no service running
/// in the test process (the shape of Hummingbird's test framework, which runs the application around the test's
/// closure). Put `.stoppingStacks` on a suite.
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

/// What the current test started, each with its stop: stopped last-started first, as `defer` blocks run, so a stack
/// stops before the private cluster it runs on. Each stop does nothing when the test stopped it already.
final class StackRegistry: Sendable {
    @TaskLocal static var current: StackRegistry?

    private let stops = Mutex<[@Sendable () async -> Void]>([])

    func add(_ stack: TestStack) {
        add { if !stack.isShutDown { try? await stack.shutdown() } }
    }

    func add(_ stop: @escaping @Sendable () async -> Void) { stops.withLock { $0.append(stop) } }

    func stopRemaining() async {
        let remaining = stops.withLock { stops in
            defer { stops.removeAll() }
            return stops
        }
        for stop in remaining.reversed() { await stop() }
    }
}
