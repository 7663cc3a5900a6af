import CaretideIdentity
import CaretideLocalStack
import CaretideTestSupport
import Foundation
import IngestService
import ScoringService
import Testing

/// The patient's report for a period (from ViewsTests): the page, as headless Chromium shows and prints it, and the PDF
/// the service prints itself. Runs alone (SerialTests): it starts headless Chromium four times, and beside the rest the
/// browser's processes starved timed waits elsewhere.
@Suite(.serialized, .stoppingStacks) struct ReportTests {
    static func bloodPressure(_ systolic: Int, _ diastolic: Int, at time: String) -> String {
        #"{"measurementId": "\#(UUID())", "systolic": \#(systolic), "diastolic": \#(diastolic), "takenAt": "\#(time)"}"#
    }

    /// A skin photo of the imaging fixtures, uploaded as the photo tests upload it.
    static func upload(_ base: String, _ id: UUID, _ file: String, query: String) async throws -> HTTP.Reply {
        let photo = try Data(contentsOf: Paths.packageRoot.appendingPathComponent("Tests/CaretideImagingTests/Fixtures/\(file)"))
        return try await HTTP.send(method: "PUT", "\(base)/\(id)?\(query)", body: photo, as: .owner, headers: ["Content-Type": "image/jpeg"])
    }

    @Test(
        "the report for a period: charts with text alternatives, no console error in Chromium, the figures in its PDF; only the patient and the care team"
    )
    func report() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition(), ScoringService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let scoring = stack.baseURL(ScoringService.name)
        // Days 16 to 18 are three readings in a row at stage 2 or higher: the care-tracking section.
        for (day, systolic, diastolic) in [(2, 118, 76), (9, 134, 84), (16, 192, 118), (17, 150, 95), (18, 146, 92), (23, 121, 78), (30, 126, 79)] {
            let time = String(format: "2026-10-%02dT07:30:00Z", day)
            #expect(
                try await HTTP.send(
                    method: "POST", "\(ingest)/v1/patients/p-report/measurements/blood-pressure",
                    json: Self.bloodPressure(systolic, diastolic, at: time)
                ).status == 201)
        }
        #expect(
            try await HTTP.send(
                method: "PUT", "\(ingest)/v1/patients/p-report/npi/\(UUID())",
                json: #"{"tumourSizeCm": 2.0, "histologicalGrade": 2, "positiveNodes": 1, "diagnosisDate": "2026-10-05T00:00:00Z"}"#
            ).status == 201)
        // A released exam report whose institution's texts carry markup: it reaches the page as text.
        let exam =
            #"{"patientId": "p-report", "reportedAt": "2026-10-20T08:00:00Z", "items": [{"code": "2345-7", "name": "<img src=x onerror=alert(1)>Glucose", "value": 182, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99, "comment": "<script>alert(1)</script> Repeat fasting"}, {"code": "2160-0", "name": "Creatinine", "value": 0.9, "unit": "mg/dL", "referenceLow": 0.6, "referenceHigh": 1.2}]}"#
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/institutions/st-mary/exam-results/E-rep", json: exam).status == 201)
        try await eventually("the readings assessed") {
            (try await HTTP.get("\(scoring)/v1/patients/p-report/assessments?standing=true").items()).count == 8
        }
        try await eventually("the released report in the patient's report") {
            try await HTTP.get("\(scoring)/v1/patients/p-report/report?from=2026-10-01&to=2026-10-31").text.contains("Exam E-rep from st-mary")
        }
        // A day of meals: the report's diet section, in the page and on the screenshot.
        try await FoodFixture.importFoods(stack)
        let meal = FoodFixture.meal(food: "01001", grams: 40, at: "2026-10-12T12:00:00Z")
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-report/meals", json: meal).status == 201)
        try await eventually("the day of meals in the patient's report") {
            try await HTTP.get("\(scoring)/v1/patients/p-report/report?from=2026-10-01&to=2026-10-31").text.contains("<h2>Diet</h2>")
        }

        // A skin photo of the period (no classifier's answer yet): the photo timeline.
        #expect(
            try await Self.upload(
                "\(ingest)/v1/patients/p-report/photos", UUID(), "sharp.jpg", query: "bodySite=forearm&side=left&takenAt=2026-10-14T09:00:00Z"
            ).status == 201)
        try await eventually("the photo and the care-tracking pattern in the patient's report") {
            let page = try await HTTP.get("\(scoring)/v1/patients/p-report/report?from=2026-10-01&to=2026-10-31").text
            return page.contains("<h2>Skin photos</h2>") && page.contains("<h2>Care tracking</h2>")
        }

        let reply = try await HTTP.get("\(scoring)/v1/patients/p-report/report?from=2026-10-01&to=2026-10-31")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type")?.hasPrefix("text/html") == true && reply.header("Cache-Control") == "no-store")
        #expect(reply.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        let html = reply.text
        #expect(html.contains("<h2>Blood pressure</h2>") && html.contains("Readings: 7. Outside the normal range: 4."))
        #expect(html.contains("forearm (left)") && html.contains("No answer yet"))
        #expect(html.contains("Blood pressure at stage 2 or higher in consecutive readings"))
        #expect(html.contains("2026-10-01 to 2026-10-31") && html.contains("<h2>Nottingham Prognostic Index</h2>"))
        #expect(html.contains("1 positive (stage 2)") && html.contains("Days with meals recorded: 1."))
        #expect(html.contains("Very high blood pressure (hypertensive crisis)") && html.contains("▲ 192/118 mmHg"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;Glucose (2345-7)") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt; Repeat"))
        #expect(!html.contains("<img") && html.contains("▲ 182 mg/dL") && html.contains("▲ High") && html.contains("<td>Normal</td>"))

        // As a browser shows it, and on paper.
        let output = Paths.packageRoot.appendingPathComponent(".build/test-output/report")
        let rendering = try await Chromium.render(html, name: "patient-report", in: output)
        #expect(rendering.consoleLines.isEmpty, "console: \(rendering.consoleLines)")
        let charts = rendering.dom.components(separatedBy: "<svg").count - 1
        #expect(charts == 3, "a systolic and a diastolic chart, each over its own bands, and the NPI survival curve")
        #expect(rendering.dom.components(separatedBy: "<desc id=").count - 1 == charts, "every chart has its text alternative")
        let screenshot = try Data(contentsOf: rendering.screenshot)
        #expect(screenshot.count > 10_000 && screenshot.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        let text = try await Subprocess.run("/usr/bin/pdftotext", ["-layout", rendering.pdf.path, "-"])
        #expect(text.status == 0 && text.output.contains("Blood pressure") && text.output.contains("192/118 mmHg"))
        let firstPage = output.appendingPathComponent("patient-report-page")
        #expect(
            try await Subprocess.run(
                "/usr/bin/pdftoppm", ["-png", "-r", "40", "-f", "1", "-l", "1", "-singlefile", rendering.pdf.path, firstPage.path]
            ).status == 0)
        #expect(FileManager.default.fileExists(atPath: firstPage.path + ".png"))

        // The service prints the same page to PDF itself.
        let printed = try await HTTP.get("\(scoring)/v1/patients/p-report/report.pdf?from=2026-10-01&to=2026-10-31")
        #expect(printed.status == 200 && printed.header("Content-Type") == "application/pdf" && printed.body.starts(with: Array("%PDF".utf8)))
        let served = output.appendingPathComponent("served.pdf")
        try printed.body.write(to: served)
        let servedText = try await Subprocess.run("/usr/bin/pdftotext", ["-layout", served.path, "-"])
        #expect(servedText.output.contains("Nottingham Prognostic Index") && servedText.output.contains("192/118 mmHg"))
        let stranger = Caller.identity(Identity(subject: "p-else", role: .patient))
        #expect(try await HTTP.get("\(scoring)/v1/patients/p-report/report.pdf", as: stranger).status == 403)

        // The check can fail: a page that tries to run a script is caught by its own policy, and Chromium says so.
        let hostile = html.replacingOccurrences(of: "<main>", with: "<main><script>document.title='x'</script>")
        #expect(try await !Chromium.render(hostile, name: "hostile", in: output).consoleLines.isEmpty)

        // A consultant reads it once the patient grants them; without a grant, or as another patient, it is refused.
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-report/care-team/dr-rep", json: "{}").status == 200)
        let consultant = Caller.identity(Identity(subject: "dr-rep", role: .consultant))
        try await eventually("the grant reaches scoring") {
            try await HTTP.get("\(scoring)/v1/patients/p-report/report", as: consultant).status == 200
        }
        #expect(
            try await HTTP.get("\(scoring)/v1/patients/p-report/report", as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)
        #expect(
            try await HTTP.get("\(scoring)/v1/patients/p-report/report", as: .identity(Identity(subject: "dr-x", role: .consultant))).status == 403)
        try await stack.shutdown()
    }
}
