import CaretideSchemas
import Foundation

/// What `caretide-bench pipeline` sends, and what each request must cause downstream. Pure: the requests are values,
/// and the traffic loop sends them.
///
/// The values are chosen so that what follows is fixed by the clinical and alerting rules (docs/clinical-rules.md),
/// which lets the bench reconcile exactly: a normal reading has one assessment and no alert; an urgent one (systolic
/// above 180) has one assessment and always alerts its patient; attention findings, whose repeats are held back
/// once a day, are not sent. Urgent readings also count towards the sustained stage-2 care-tracking rule (three in
/// a row); its alerts are follow-ons, counted apart.
enum PipelineKind: String, CaseIterable, Sendable, Comparable {
    /// A patient's app: one blood-pressure reading, normal.
    case reading
    /// A patient's app: one urgent blood-pressure reading (alerts the patient).
    case urgentReading = "urgent reading"
    /// A patient's app coming back online: `syncSize` readings in one upload (each counts as an event).
    case sync
    /// A patient's Nottingham Prognostic Index inputs (excellent prognosis: no alert).
    case npi
    /// A patient's melanoma risk factors (an average profile: no alert).
    case risk
    /// An institution's exam report, released at once (no release rules): "results ready" for the patient.
    case report
    /// An operator's UV index reading for an area: each subscriber is alerted (above the threshold) or given the
    /// all-clear (below it), alternately.
    case environment
    /// A consultant's Phenomizer ranking: answered synchronously, nothing downstream.
    case diagnosis

    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// Requests of each kind per 100 (each sync upload carries `syncSize` events): about what a hospital region
    /// sends, most of it patients' apps, and most of the events in offline syncs.
    var weight: Int {
        switch self {
        case .reading: 45
        case .urgentReading: 5
        case .sync: 10
        case .npi: 5
        case .risk: 5
        case .report: 15
        case .environment: 5
        case .diagnosis: 10
        }
    }

    /// Whether the kind goes through ingest → scoring → notification (and counts towards the pipeline's events/s).
    var flowsThroughPipeline: Bool { self != .diagnosis }

    /// Where the end-to-end latency of the kind ends.
    var end: String {
        switch self {
        case .reading, .sync, .npi, .risk: "its assessment on caretide.scores (no notification is due)"
        case .urgentReading, .report: "the patient's alert on caretide.alerts"
        case .environment: "each subscriber's alert on caretide.alerts"
        case .diagnosis: "the HTTP answer"
        }
    }
}

/// Which service a request goes to.
enum PipelineService: Sendable { case ingest, notification, diagnosis }

/// One HTTP request of the mix and what it must cause downstream, with the same trace id.
struct PipelineRequest: Sendable {
    let kind: PipelineKind
    let service: PipelineService
    let method: String
    let path: String
    let body: Data
    /// Who sends it (a key of the token set).
    let caller: PipelineCaller
    /// Events the request carries (a sync upload's changes count one by one).
    let events: Int
    /// Distinct assessments expected on caretide.scores, and distinct alerts on caretide.alerts.
    let assessments: Int
    let alerts: Int
}

enum PipelineCaller: Hashable, Sendable {
    case patient(Int)
    case institution(Int)
    case `operator`
    case consultant
}

/// The mix: requests drawn by weight, deterministic for a seed, so two runs send the same traffic.
struct PipelineMix: Sendable {
    let runID: String
    let patients: Int
    let institutions = 5
    let syncSize: Int
    /// Environment areas: one per traffic lane, so an area's readings are sent one after another, in order (a reading
    /// not newer than the last one decided is skipped by the rules).
    let areas: Int
    let subscribersPerArea: Int
    /// When the first environment reading of an area was observed; each next one a day later, alternately above and
    /// below the UV threshold, so that every reading alerts or clears every subscriber (one alert a local day).
    let environmentEpoch: Date

    func patientID(_ index: Int) -> String { "bench-\(runID)-p\(index)" }
    func institutionID(_ index: Int) -> String { "bench-\(runID)-i\(index)" }
    func areaCode(_ index: Int) -> String { "BENCH-\(runID.uppercased())-\(index)" }
    /// The patients subscribed to an area: consecutive ones, so every area has its own.
    func subscribers(ofArea area: Int) -> [Int] { (0..<subscribersPerArea).map { (area * subscribersPerArea + $0) % patients } }

    /// Kinds by cumulative weight.
    private static let table: [PipelineKind] = PipelineKind.allCases.flatMap { Array(repeating: $0, count: $0.weight) }

    func kind<G: RandomNumberGenerator>(using generator: inout G, diagnosis: Bool) -> PipelineKind {
        while true {
            let kind = Self.table[Int.random(in: 0..<Self.table.count, using: &generator)]
            if kind != .diagnosis || diagnosis { return kind }
        }
    }

    /// The request of `kind`; `lane` picks the lane's area, `sequence` the area's next reading.
    func request<G: RandomNumberGenerator>(_ kind: PipelineKind, lane: Int, environmentSequence: Int, using generator: inout G) -> PipelineRequest {
        let patient = Int.random(in: 0..<patients, using: &generator)
        let id = patientID(patient)
        let now = Timestamp.format(Date().addingTimeInterval(-60))
        func reading(_ measurement: UUID, systolic: Int, diastolic: Int) -> String {
            #"{"measurementId":"\#(measurement.lowercased)","systolic":\#(systolic),"diastolic":\#(diastolic),"takenAt":"\#(now)"}"#
        }
        // Normal: systolic < 120 and diastolic < 80 (AHA/ACC 2017).
        func normal() -> (Int, Int) { (Int.random(in: 100...118, using: &generator), Int.random(in: 60...78, using: &generator)) }
        switch kind {
        case .reading:
            let (systolic, diastolic) = normal()
            return PipelineRequest(
                kind: kind, service: .ingest, method: "POST", path: "/v1/patients/\(id)/measurements/blood-pressure",
                body: Data(reading(UUID(), systolic: systolic, diastolic: diastolic).utf8), caller: .patient(patient), events: 1, assessments: 1,
                alerts: 0)
        case .urgentReading:
            // Systolic above 180: a hypertensive crisis, urgent, alerted every time.
            return PipelineRequest(
                kind: kind, service: .ingest, method: "POST", path: "/v1/patients/\(id)/measurements/blood-pressure",
                body: Data(reading(UUID(), systolic: Int.random(in: 185...200, using: &generator), diastolic: 100).utf8),
                caller: .patient(patient), events: 1, assessments: 1, alerts: 1)
        case .sync:
            let changes = (0..<syncSize).map { _ in
                let measurement = UUID()
                let (systolic, diastolic) = normal()
                return
                    #"{"kind":"blood-pressure","id":"\#(measurement.lowercased)","updatedAt":"\#(now)","record":\#(reading(measurement, systolic: systolic, diastolic: diastolic))}"#
            }
            return PipelineRequest(
                kind: kind, service: .ingest, method: "POST", path: "/v1/patients/\(id)/changes",
                body: Data(#"{"changes":[\#(changes.joined(separator: ","))]}"#.utf8), caller: .patient(patient),
                events: syncSize, assessments: syncSize, alerts: 0)
        case .npi:
            // NPI = 0.2 × size + grade + node stage = 0.3 + 1 + 1 = 2.3: excellent prognostic group (Galea 1992).
            return PipelineRequest(
                kind: kind, service: .ingest, method: "PUT", path: "/v1/patients/\(id)/npi/\(UUID().lowercased)",
                body: Data(#"{"tumourSizeCm":1.5,"histologicalGrade":1,"positiveNodes":0,"diagnosisDate":"2026-10-01T00:00:00Z"}"#.utf8),
                caller: .patient(patient), events: 1, assessments: 1, alerts: 0)
        case .risk:
            // Few risk factors: below the "higher" category, which is the only one that alerts.
            return PipelineRequest(
                kind: kind, service: .ingest, method: "PUT", path: "/v1/patients/\(id)/melanoma-risk-profiles/\(UUID().lowercased)",
                body: Data(
                    #"{"age":\#(Int.random(in: 25...60, using: &generator)),"sex":"female","fitzpatrickSkinType":4,"eyeColour":"brownOrBlack","hairColour":"darkBrownOrBlack","commonMoles":"upTo15","atypicalMoleCount":0,"freckling":"noneOrFew","familyHistory":"none","personalHistory":"none","immunosuppression":[],"sunburnHistory":false}"#
                        .utf8),
                caller: .patient(patient), events: 1, assessments: 1, alerts: 0)
        case .report:
            let institution = Int.random(in: 0..<institutions, using: &generator)
            return PipelineRequest(
                kind: kind, service: .ingest, method: "PUT", path: "/v1/institutions/\(institutionID(institution))/exam-results/\(UUID().lowercased)",
                body: Data(
                    #"{"patientId":"\#(id)","reportedAt":"\#(now)","items":[{"code":"2345-7","name":"Glucose","value":\#(Int.random(in: 72...95, using: &generator)),"unit":"mg/dL","referenceLow":70,"referenceHigh":99},{"code":"718-7","name":"Haemoglobin","value":13.9,"unit":"g/dL","referenceLow":12,"referenceHigh":15.5}]}"#
                        .utf8),
                caller: .institution(institution), events: 1, assessments: 0, alerts: 1)
        case .environment:
            let area = lane % areas
            let observed = environmentEpoch.addingTimeInterval(Double(environmentSequence) * 86_400)
            // UV 8 is above every subscriber's threshold (6; 3 for skin types 1–2); UV 1 is below all of them.
            let uv = environmentSequence.isMultiple(of: 2) ? 8.0 : 1.0
            return PipelineRequest(
                kind: kind, service: .ingest, method: "POST", path: "/v1/areas/\(areaCode(area))/uv-index",
                body: Data(#"{"observedAt":"\#(Timestamp.format(observed))","uvIndex":\#(uv)}"#.utf8), caller: .operator,
                events: 1, assessments: 0, alerts: subscribersPerArea)
        case .diagnosis:
            let terms = Self.phenotypes.shuffled(using: &generator).prefix(Int.random(in: 2...5, using: &generator))
            return PipelineRequest(
                kind: kind, service: .diagnosis, method: "POST", path: "/v1/rankings",
                body: Data(#"{"phenotypes":[\#(terms.map { "\"\($0)\"" }.joined(separator: ","))]}"#.utf8), caller: .consultant,
                events: 1, assessments: 0, alerts: 0)
        }
    }

    /// Terms present in the full HPO release and in the tests' fixture (Tests/PhenotypeRankingTests/Fixtures).
    static let phenotypes = ["HP:0001166", "HP:0001083", "HP:0001250", "HP:0001263", "HP:0004322", "HP:0002650"]
}

extension UUID {
    var lowercased: String { uuidString.lowercased() }
}
