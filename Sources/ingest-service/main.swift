import CaretideRuntime
import IngestService

await ServiceMain.run(IngestService.definition, defaultPort: IngestService.defaultPort)
