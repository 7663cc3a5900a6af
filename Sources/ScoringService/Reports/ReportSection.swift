/// The parts of a report a patient may choose to share: each names the sections of the page it brings.
enum ReportSection: String, CaseIterable, Codable, Sendable {
    /// Blood pressure, pulse, body-mass index, glucose, HbA1c and lipids, with their charts.
    case measurements
    case npi
    case examResults
    /// The melanoma risk profile and the skin photos' timeline.
    case melanoma
    case diet
    /// The care-tracking patterns the care team was told of.
    case care
    /// UV and air quality where the patient follows them.
    case environment
}
