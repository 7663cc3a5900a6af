import Foundation
import Logging
import ServiceLifecycle

/// The whole `main` of a service executable: set up logging (`LOG_FORMAT`: json or text), read the environment, build the service group, run it until SIGTERM or
/// SIGINT. A configuration error prints every problem and exits with status 78 (EX_CONFIG) instead of crash-looping.
public enum ServiceMain {
    public static func run(_ definition: ServiceDefinition, defaultPort: Int) async {
        LogFormat.fromEnvironment(ProcessInfo.processInfo.environment).bootstrap()
        let logger = Logger(label: "caretide.\(definition.name)")
        let configuration: ServiceConfiguration
        do {
            configuration = try ServiceConfiguration.fromEnvironment(
                ProcessInfo.processInfo.environment, serviceName: definition.name, defaultPort: defaultPort)
        } catch {
            FileHandle.standardError.write(Data("\(definition.name): \(error.description)\n".utf8))
            exit(78)
        }
        do {
            let assembly = try await ServiceAssembly(definition: definition, configuration: configuration, logger: logger)
            try await assembly.group.run()
        } catch let error as InvalidConfiguration {
            FileHandle.standardError.write(Data("\(definition.name): \(error.description)\n".utf8))
            exit(78)
        } catch {
            logger.critical("service stopped with an error", metadata: [LogKey.error: "\(String(reflecting: error))"])
            exit(1)
        }
    }
}
