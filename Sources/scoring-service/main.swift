import CaretideRuntime
import ScoringService

await ServiceMain.run(ScoringService.definition, defaultPort: ScoringService.defaultPort)
