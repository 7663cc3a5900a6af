/// The coding key of an array element in a coding path (`[..., "items", 2]`), shared by Caretide's JSON encoder
/// and decoder.
struct ArrayIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
