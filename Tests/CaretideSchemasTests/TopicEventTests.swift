import CaretideSchemas
import Testing

@Suite struct TopicEventTests {
    @Test("every event type is typed under the topic it is published on", arguments: EventSamples.all)
    func typedUnderItsTopic(sample: EventSample) throws {
        let event = try EventCodec().decode(try sample.encode())
        #expect(try TopicEvent(event).topic == sample.eventType.topic)
    }
}
