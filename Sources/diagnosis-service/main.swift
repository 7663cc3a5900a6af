import CaretideRuntime
import DiagnosisService

await ServiceMain.run(DiagnosisService.definition, defaultPort: DiagnosisService.defaultPort)
