import CaretideDomain
import Foundation
import Testing

/// Runs `body` and returns the `DomainValidationError` it threw, or nil if it succeeded.
/// Any other error type is recorded as a test failure (the rules only ever throw `DomainValidationError`).
func validationError<T>(_ body: () throws -> T) -> DomainValidationError? {
    do {
        _ = try body()
        return nil
    } catch let error as DomainValidationError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A fixed reference instant so tests never depend on the wall clock.
let referenceNow = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

func days(_ n: Double) -> TimeInterval { n * 86_400 }
