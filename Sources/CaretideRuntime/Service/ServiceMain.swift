import Foundation
import Logging
import ServiceLifecycle

/// The whole `main` of a service executable: set up logging (`LOG_FORMAT`: json or text), read the environment, build
/// the service group, run it until SIGTERM or SIGINT. A configuration error prints every problem, the runtime's and the
/// service's own together, and exits with status 78 (EX_CONFIG) instead of crash-looping.
public enum ServiceMain {
    /// A service whose definition reads nothing from the environment.
    public static func run(_ definition: ServiceDefinition, defaultPort: Int) async {
        await run(name: definition.name, defaultPort: defaultPort) { _ in definition }
    }

    /// - Parameter definition: the service's definition from the settings it reads itself (its own variables), or
    ///   every problem with them.
    public static func run(
        name: String, defaultPort: Int, definition: ([String: String]) throws(InvalidConfiguration) -> ServiceDefinition
    ) async {
        let environment = ProcessInfo.processInfo.environment
        LogFormat.fromEnvironment(environment).bootstrap()
        let logger = Logger(label: "caretide.\(name)")
        var problems: [String] = []
        var configuration: ServiceConfiguration?
        var service: ServiceDefinition?
        do {
            configuration = try ServiceConfiguration.fromEnvironment(environment, serviceName: name, defaultPort: defaultPort)
        } catch {
            problems += error.problems
        }
        do {
            service = try definition(environment)
        } catch {
            problems += error.problems
        }
        guard let configuration, let service, problems.isEmpty else { stop(name, InvalidConfiguration(problems: problems)) }
        do {
            let assembly = try await ServiceAssembly(definition: service, configuration: configuration, logger: logger)
            try await assembly.group.run()
        } catch let error as InvalidConfiguration {
            stop(name, error)
        } catch {
            logger.critical("service stopped with an error", metadata: [LogKey.error: "\(String(reflecting: error))"])
            exit(1)
        }
    }

    private static func stop(_ name: String, _ error: InvalidConfiguration) -> Never {
        FileHandle.standardError.write(Data("\(name): \(error.description)\n".utf8))
        exit(78)
    }
}
