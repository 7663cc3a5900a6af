import CaretideSchemas
import Foundation

/// How an offline device's change meets the stored record (the seed's UpdateTime / IsDelete), decided without I/O.
///
/// - Updates: the last writer wins by the device's `updatedAt`. A change no newer than the stored version is stale:
///   reported as a conflict with the stored version, never applied. (An identical body is simply unchanged.)
/// - Deletions win over updates whatever their times, and a deleted record stays deleted: a reading deleted on one
///   device and edited on another ends deleted on both, in whichever order the two devices sync.
///
/// Together these make the end state independent of the order in which devices upload (for distinct `updatedAt`):
/// deleted if any device deleted, otherwise the body with the latest `updatedAt`.
enum LastWriterWins {
    /// The record as stored.
    struct Stored: Equatable {
        let revision: Int
        /// The device's `updatedAt` of the stored version, or the server's time of a write that came without one.
        let updatedAt: Date
        let deleted: Bool
        let body: JSONValue
    }

    /// One change from a device.
    struct Change: Equatable {
        let updatedAt: Date
        let deleted: Bool
        /// The record; nil for a deletion.
        let body: JSONValue?
    }

    enum Outcome: Equatable {
        /// A new record, revision 1.
        case insert
        /// The next revision.
        case revise
        case delete
        /// The same body, sent later: only the stored time advances (no revision, no event), so that an older change
        /// arriving afterwards is still stale.
        case refresh
        /// Nothing to do: the same body sent no later, a deletion of a deleted record, or of one never stored.
        case unchanged
        /// Not applied; the answer carries the stored version.
        case conflict(Conflict)
    }

    enum Conflict: String, Equatable {
        /// The stored version is as new as the change or newer.
        case stale
        /// The record was deleted; deletions are final.
        case deleted
    }

    static func decide(_ change: Change, stored: Stored?) -> Outcome {
        guard let stored else { return change.deleted ? .unchanged : .insert }
        if stored.deleted { return change.deleted ? .unchanged : .conflict(.deleted) }
        if change.deleted { return .delete }
        guard change.updatedAt > stored.updatedAt else { return change.body == stored.body ? .unchanged : .conflict(.stale) }
        return change.body == stored.body ? .refresh : .revise
    }

    /// The stored record after `outcome` (what the next change of the same upload meets).
    static func apply(_ outcome: Outcome, of change: Change, to stored: Stored?) -> Stored? {
        switch outcome {
        case .insert: Stored(revision: 1, updatedAt: change.updatedAt, deleted: false, body: change.body ?? .null)
        case .revise: Stored(revision: (stored?.revision ?? 0) + 1, updatedAt: change.updatedAt, deleted: false, body: change.body ?? .null)
        case .refresh: stored.map { Stored(revision: $0.revision, updatedAt: change.updatedAt, deleted: false, body: $0.body) }
        case .delete: stored.map { Stored(revision: $0.revision, updatedAt: $0.updatedAt, deleted: true, body: $0.body) }
        case .unchanged, .conflict: stored
        }
    }
}
