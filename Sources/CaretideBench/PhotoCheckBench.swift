import ArgumentParser
import CaretideImaging
import Foundation

/// The checks of one skin photo in-process (issue 27): the part of an upload that is ingest's own CPU, apart from
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
