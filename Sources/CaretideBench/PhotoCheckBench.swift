import ArgumentParser
import CaretideImaging
import Foundation

/// The checks of one skin photo in-process: the part of an upload that is ingest's own CPU, apart from
/// receiving the body and storing it. Stage by stage, so a profile need not guess: the header, the decode at the
/// working scale, the sharpness measure, the metadata stripping, the thumbnail; then `PhotoInspection.inspect` whole.
struct PhotoCheckBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos", abstract: "Milliseconds per skin-photo check (scripts/make-photo-fixtures --bench-photo FILE makes a 4 MB one).")

    @Option(help: "The photo to check.") var photo: String
    @Option(help: "Checks to time.") var runs = 50

    func run() async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: photo)))
        let inspection = PhotoInspection()
        guard let format = ImageFormat(signatureOf: bytes) else { throw ValidationError("\(photo) is not a JPEG, PNG or HEIF file") }
        let size = try Codecs.size(of: bytes, format: format)
        let scale = format == .jpeg ? ([8, 4, 2, 1].first { max(size.width, size.height) / $0 >= Sharpness.workingSide } ?? 1) : 1
        var stages: [String: [Duration]] = [:]
        let clock = ContinuousClock()
        func time<T>(_ stage: String, _ work: () throws -> T) rethrows -> T {
            let began = clock.now
            let result = try work()
            stages[stage, default: []].append(clock.now - began)
            return result
        }
        for _ in 0..<runs {
            _ = try time("1 header") { try Codecs.size(of: bytes, format: format) }
            let decoded = try time("2 decode (1/\(scale))") {
                try Codecs.decodeRGB(bytes, format: format, scale: scale, maximumPixels: inspection.limits.maximumPixels, maximumScans: 64)
            }
            _ = time("3 sharpness") { Sharpness.measure(decoded) }
            _ = time("3b skin presence") { SkinPresence.measure(decoded) }
            if format != .heif { _ = try time("4 strip metadata") { try MetadataStripping.stripped(bytes, format: format) } }
            _ = try time("5 thumbnail") {
                try Codecs.encodeJPEG(decoded.shrunk(by: decoded.factor(toFit: PhotoInspection.thumbnailSide)), quality: 80)
            }
            _ = try time("6 inspect, whole") { try inspection.inspect(bytes) }
        }
        print("photos: \(photo), \(bytes.count) bytes, \(format.rawValue) \(size.width)×\(size.height), \(runs) runs")
        for (stage, durations) in stages.sorted(by: { $0.key < $1.key }) {
            let summary = LatencySummary(durations)
            print("  \(stage): p50 \(summary.milliseconds(0.5, digits: 2)), p99 \(summary.milliseconds(0.99, digits: 2))")
        }
    }
}

/// The skin check on a directory of fixtures (Tests/CaretideImagingTests/Fixtures/skin): per group of files (the name
/// up to its last dash: `skin-type3`, `noskin`, `hard`, …), how many were refused, unsure and taken for skin, so that
/// the false-refusal rate of each Fitzpatrick type stands beside the refusals of scenes without skin.
struct SkinPresenceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skin", abstract: "The skin check's verdicts per group of fixtures, and each file's shares of skin colour.")

    @Option(help: "A directory of JPEG or PNG files named <group>-<what>.jpg.") var directory = "Tests/CaretideImagingTests/Fixtures/skin"

    func run() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
        var groups: [String: [SkinPresence.Verdict]] = [:]
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file)))
            guard let format = ImageFormat(signatureOf: bytes) else { continue }
            let image = try Codecs.decodeRGB(bytes, format: format, scale: 1, maximumPixels: 50_000_000, maximumScans: 64)
            let measure = SkinPresence.measure(image)
            let name = file.split(separator: ".").first.map(String.init) ?? file
            let parts = name.split(separator: "-")
            // skin-type3-flash → skin-type3; noskin-wall-white → noskin; hard-cat → hard.
            let group = parts.first == "skin" && parts.count > 2 ? parts.prefix(2).joined(separator: "-") : String(parts.first ?? "")
            groups[group, default: []].append(measure.verdict)
            print(
                "  \(file): skin colour \(String(format: "%.4f", measure.skinFraction)), largest region "
                    + "\(String(format: "%.4f", measure.largestRegionFraction)): \(measure.verdict.rawValue)")
        }
        print("group            files  refused  unsure  skin  refused %")
        for (group, verdicts) in groups.sorted(by: { $0.key < $1.key }) {
            let refused = verdicts.filter { $0 == .noSkin }.count
            let unsure = verdicts.filter { $0 == .unsure }.count
            print(
                group.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(
                        format: " %5d  %7d  %6d  %4d  %8.1f", verdicts.count, refused, unsure, verdicts.count - refused - unsure,
                        100 * Double(refused) / Double(verdicts.count)))
        }
    }
}
