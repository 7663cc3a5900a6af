extension ValidatedEvent {
    /// The payload as the type its event type names (the codec decoded it as that type, so this holds for every
    /// validated event; a mismatch is refused rather than trusted).
    public func payload<P: EventPayload>(_ type: P.Type = P.self) throws(PayloadMismatch) -> P {
        guard let payload = payload as? P else { throw PayloadMismatch(eventType: eventType) }
        return payload
    }
}

public struct PayloadMismatch: Error, CustomStringConvertible {
    public let eventType: EventType
    public var description: String { "the payload of \(eventType.rawValue) is not of its type" }
}
