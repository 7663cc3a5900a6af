import CaretideRuntime
import Foundation
import IngestService

// The sync settings are ingest-service's own; a bad value stops it as any configuration error does (exit 78).
let sync: SyncSettings
do {
    sync = try SyncSettings.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("\(IngestService.name): \(error.description)\n".utf8))
    exit(78)
}
await ServiceMain.run(IngestService.definition(sync: sync), defaultPort: IngestService.defaultPort)
