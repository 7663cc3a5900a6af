import CaretideRuntime
import Foundation
import ScoringService

// The tips' translations are scoring-service's own; a bad directory stops it as any configuration error does (exit 78).
let tips: TipCatalog
do {
    tips = try ScoringService.tips(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("\(ScoringService.name): \(error.description)\n".utf8))
    exit(78)
}
await ServiceMain.run(ScoringService.definition(tips: tips), defaultPort: ScoringService.defaultPort)
