/// What became of one write, in every answer that tells it: a single record's receipt, each change of an offline
/// upload, each report of a batch. One vocabulary, so a client reads one word the same way whichever door it used.
enum WriteOutcome: String, Encodable, Sendable {
    /// Stored as new (a batch's report says `accepted`, the word of the HL7 acknowledgement it stands for).
    case recorded, accepted
    /// The same write again: nothing new.
    case duplicate
    /// A changed version of a stored record: its next revision.
    case corrected
    /// Nothing to change (a refresh of what is stored, or a deletion of what was deleted).
    case unchanged
    case deleted
    /// An offline change older than the stored version, or one on a deleted record (with the stored version).
    case conflict
    /// Refused, with every failing field.
    case refused
    /// The database could not take it now: send it again.
    case failed
    /// An institution's report for a patient it registered who has not yet linked their account: held, and stored for
    /// them once they redeem their activation code.
    case waiting
}
