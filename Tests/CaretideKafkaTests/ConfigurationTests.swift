import CaretideKafka
import CaretideTestSupport
import Testing

@Suite struct ConfigurationTests {
    @Test func environmentMapsBrokersAndProperties() throws {
        let configuration = try KafkaConfiguration.fromEnvironment([
            "KAFKA_BROKERS": "kafka-1:9092,kafka-2:9092",
            "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
            "KAFKA_SASL_MECHANISMS": "SCRAM-SHA-512",
            "KAFKA_SSL_CA_LOCATION": "/etc/ssl/ca.pem",
            "KAFKA_CLIENT_ID": "scoring",
            "PATH": "/usr/bin",
            "POSTGRES_HOST": "db",
        ])
        #expect(configuration.bootstrapServers == "kafka-1:9092,kafka-2:9092")
        #expect(
            configuration.properties == [
                "security.protocol": "SASL_SSL",
                "sasl.mechanisms": "SCRAM-SHA-512",
                "ssl.ca.location": "/etc/ssl/ca.pem",
                "client.id": "scoring",
            ])
    }

    @Test func missingBrokersIsAConfigurationErrorNamingTheVariable() {
        #expect {
            try KafkaConfiguration.fromEnvironment(["KAFKA_CLIENT_ID": "x"])
        } throws: { error in
            guard let error = error as? KafkaError else { return false }
            return error.code == .configuration && error.description.contains("KAFKA_BROKERS") && !error.isRetriable
        }
        #expect(throws: KafkaError.self) {
            try KafkaConfiguration.fromEnvironment(["KAFKA_BROKERS": "  "])
        }
    }

    @Test func invalidPropertyFailsAtCreationWithoutEchoingSecrets() {
        let configuration = KafkaConfiguration(
            bootstrapServers: "127.0.0.1:1",
            properties: ["sasl.password.nonexistent": "hunter2"]
        )
        #expect {
            try KafkaProducer(configuration: configuration, logger: KafkaTestSupport.logger)
        } throws: { error in
            guard let error = error as? KafkaError else { return false }
            return error.code == .configuration && !String(reflecting: error).contains("hunter2")
        }
    }

    @Test func errorDescriptionIsShortAndDebugDescriptionHasDetails() {
        let error = KafkaError(code: .delivery, message: "not acknowledged", isRetriable: true, librdkafkaErrorName: "_MSG_TIMED_OUT")
        #expect(error.description == "Kafka delivery error: not acknowledged")
        #expect(String(reflecting: error).contains("_MSG_TIMED_OUT"))
        #expect(String(reflecting: error).contains("ConfigurationTests.swift"))
    }

    @Test func totalLagSumsPartitions() {
        let lags = [
            KafkaPartitionLag(topic: "t", partition: 0, highWatermark: 10, position: 4),
            KafkaPartitionLag(topic: "t", partition: 1, highWatermark: 3, position: 5),
        ]
        #expect(lags.map(\.lag) == [6, 0])
        #expect(lags.totalLag == 6)
    }
}
