@testable import CaretideNutrition

/// Form feed: the four files of one input are separated by it, as SR28's ASCII files never hold one.
private let separator: UInt8 = 0x0C

/// Bytes as the four SR28 files Caretide reads, in the order it reads them (FD_GROUP, FOOD_DES, NUT_DATA, WEIGHT),
/// separated by form feeds; a missing file is empty. They go to the byte-level parser that `load(directory:)` uses,
/// so text that is not UTF-8 takes the Windows-1252 path as a file from disk would.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var files = bytes.split(separator: separator, maxSplits: 3, omittingEmptySubsequences: false).map { Array($0) }
    while files.count < 4 { files.append([]) }
    do {
        _ = try StandardReference.parse(foodDescriptions: files[1], foodGroups: files[0], nutrientData: files[2], weights: files[3])
    } catch {
        // A malformed row is refused with its file and line: expected.
    }
    return 0
}
