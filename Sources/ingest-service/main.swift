import CaretideRuntime
import IngestService

// The sync settings are ingest-service's own, checked with the rest of the configuration.
await ServiceMain.run(name: IngestService.name, defaultPort: IngestService.defaultPort) { environment throws(InvalidConfiguration) in
    IngestService.definition(sync: try SyncSettings.fromEnvironment(environment))
}
