public import Foundation

/// The time a job judges "due" by: the system's, or, in a test, one the test moves forward, so that a clock of days
/// (a follow-up's two weeks) is tested without waiting for it.
public struct WallClock: Sendable {
    private let reading: @Sendable () -> Date

    public init(_ reading: @escaping @Sendable () -> Date) {
        self.reading = reading
    }

    public var now: Date { reading() }

    public static let system = WallClock { Date() }
}
