import CaretideRuntime
import IngestService

// The sync, photo and export settings are ingest-service's own, checked with the rest of the configuration.
await ServiceMain.run(name: IngestService.name, defaultPort: IngestService.defaultPort) { environment throws(InvalidConfiguration) in
    let sync: SyncSettings
    let photos: PhotoSettings
    let exports: ExportSettings
    var problems: [String] = []
    do throws(InvalidConfiguration) { sync = try SyncSettings.fromEnvironment(environment) } catch {
        problems += error.problems
        sync = SyncSettings()
    }
    do throws(InvalidConfiguration) { photos = try PhotoSettings.fromEnvironment(environment) } catch {
        problems += error.problems
        photos = PhotoSettings()
    }
    do throws(InvalidConfiguration) { exports = try ExportSettings.fromEnvironment(environment) } catch {
        problems += error.problems
        exports = ExportSettings()
    }
    guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
    return IngestService.definition(sync: sync, photos: photos, exports: exports)
}
