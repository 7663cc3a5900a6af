import CaretideImaging

/// The production checks with two limits moved: any side from 1 pixel, so that small inputs reach the decode,
/// sharpness, stripping and thumbnail steps (the 299-pixel floor only decides whether a photo is refused, not how any
/// step reads it), and no sharpness floor, so that blurred ones get that far too. At most a million pixels, rather than
/// the default 50 million (`PHOTO_MAX_PIXELS` may be set as low as 89,401): a header may declare that many from a few
/// bytes, and decoding them under AddressSanitizer would turn every such input into a timeout.
private let inspection = PhotoInspection(
    limits: PhotoInspection.Limits(
        maximumBytes: PhotoInspection.Limits.standard.maximumBytes, maximumPixels: 1_000_000, minimumSide: 1, minimumSharpness: 0,
        maximumScans: PhotoInspection.Limits.standard.maximumScans))

/// Bytes as an uploaded skin photo: what `PhotoChecker` runs on every upload (signature, header size, decode with
/// libjpeg-turbo, libpng or libheif, sharpness, metadata stripping, thumbnail); and the metadata stripper alone on the
/// same bytes read as a JPEG and as a PNG, whatever their signature says.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    do {
        _ = try inspection.inspect(bytes)
    } catch {
        // Refused (not an image, too many pixels, does not decode, …): expected for most inputs.
    }
    _ = try? MetadataStripping.stripped(bytes, format: .jpeg)
    _ = try? MetadataStripping.stripped(bytes, format: .png)
    return 0
}
