internal import CRdKafka
internal import Dispatch

extension KafkaProducer {
    /// True when a broker answers a metadata request within `timeout` (readiness probes). The blocking call runs on
    /// a global dispatch queue, never on Swift's cooperative threads.
    public func isBrokerReachable(timeout: Duration = .seconds(2)) async -> Bool {
        let client = runtime.client
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var metadata: UnsafePointer<rd_kafka_metadata>?
                let result = rd_kafka_metadata(client.handle, 0, nil, &metadata, milliseconds)
                if let metadata { rd_kafka_metadata_destroy(metadata) }
                continuation.resume(returning: result == RD_KAFKA_RESP_ERR_NO_ERROR)
            }
        }
    }
}
