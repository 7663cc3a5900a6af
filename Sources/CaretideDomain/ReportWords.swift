/// Every word of the patient report that is not a value or a category label: headings, captions, column names and
/// sentences, keyed like the tips so that a translation (`TIP_TRANSLATIONS_DIR`) gives them too. `{name}` marks where
/// a value goes; sentences are built so that no language needs a plural rule ("Readings: 5").
public enum ReportWords {
    public static let english: [String: String] = [
        "report.title": "Health report",
        "outside.title": "A health report shared with you",
        "outside.intro":
            "A patient shared this report with you. Give your name and the access code the patient gave you; the patient sees who opened it and when.",
        "outside.name": "Your name",
        "outside.code": "Access code",
        "outside.birthDate": "The patient's date of birth (YYYY-MM-DD)",
        "outside.open": "Open the report",
        "outside.pdf": "Download it as PDF",
        "outside.problem.name": "Please give your name.",
        "outside.problem.wrong": "That code (or date of birth) is not right. After five wrong tries the link locks.",
        "outside.gone":
            "This link no longer opens a report: it expired, the patient withdrew it, or it never existed. Ask the patient to share the report again.",
        "outside.locked": "This link is locked after too many wrong codes. Ask the patient to share the report again.",
        "outside.throttled": "Too many wrong codes came from your network. Try again in 15 minutes.",
        "report.subtitle": "Patient {patient} · {period}",
        "report.period.between": "{from} to {to}",
        "report.period.from": "from {from}",
        "report.period.until": "until {to}",
        "report.period.all": "all records",
        "report.footer":
            "Made by Caretide on {date} with rule set {ruleSet}. Categories follow the sources in Caretide's clinical rules; a value outside "
            + "its normal range is marked ▲. This report does not replace a clinician's review.",
        "report.notRecorded": "Not recorded in this period",

        "report.heading.bloodPressure": "Blood pressure",
        "report.heading.pulse": "Resting pulse",
        "report.heading.bodyMassIndex": "Body mass index",
        "report.heading.glucose": "Blood glucose",
        "report.heading.hba1c": "HbA1c",
        "report.heading.lipids": "Cholesterol and triglycerides",
        "report.line.systolic": "Systolic",
        "report.line.diastolic": "Diastolic",
        "report.line.beatsPerMinute": "Pulse",
        "report.line.bmi": "BMI",
        "report.line.valueMgPerDL": "Glucose",
        "report.line.percent": "HbA1c",
        "report.line.totalCholesterolMgPerDL": "Total cholesterol",
        "report.line.ldlCholesterolMgPerDL": "LDL",
        "report.line.hdlCholesterolMgPerDL": "HDL",
        "report.line.triglyceridesMgPerDL": "Triglycerides",
        "report.unit.beatsPerMinute": "beats/min",
        "report.readings": "Readings: {count}. Outside the normal range: {outside}.",
        "report.summary.caption": "{heading}: summary",
        "report.summary.latest": "Latest",
        "report.summary.lowest": "Lowest",
        "report.summary.highest": "Highest",
        "report.column.date": "Date",
        "report.column.value": "Value",
        "report.column.category": "Category",

        "report.npi.heading": "Nottingham Prognostic Index",
        "report.npi.explanation":
            "NPI = 0.2 × tumour size (cm) + grade + lymph-node stage. The survival curve joins the group's published 5-year figure to 100 % at "
            + "diagnosis; between them it is a model, not a forecast for one person.",
        "report.npi.curveTitle": "Survival curve of the latest NPI group (illustrative)",
        "report.npi.curveUnit": "% alive",
        "report.npi.monthsAfterDiagnosis": "{months} months after diagnosis",
        "report.npi.caption": "NPI history",
        "report.npi.column.diagnosis": "Diagnosis",
        "report.npi.column.npi": "NPI",
        "report.npi.column.group": "Prognostic group",
        "report.npi.column.survival": "5-year survival",
        "report.diet.heading": "Diet",
        "report.diet.summary": "Days with meals recorded: {days}. Days at or above a WHO limit, marked ▲: {above}.",
        "report.diet.caption": "Each day's energy, salt and the WHO checks",
        "report.diet.column.day": "Day",
        "report.diet.column.meals": "Records",
        "report.diet.column.energy": "Energy",
        "report.diet.column.salt": "Salt",
        "report.diet.column.sodium": "Sodium",
        "report.diet.column.sugars": "Free sugars",
        "report.diet.column.saturatedFat": "Saturated fat",
        "report.diet.status.belowLimit": "below the limit",
        "report.diet.status.atOrAboveLimit": "at or above the limit",
        "report.diet.status.possiblyAboveLimit": "possibly above the limit",
        "report.diet.status.unknown": "not known",
        "report.photos.heading": "Skin photos",
        "report.photos.summary": "Photos taken: {count}. Answers advising a dermatologist, marked ▲: {advised}.",
        "report.photos.caption": "Photos by body site, oldest first, with the classifier's answer",
        "report.photos.column.site": "Body site",
        "report.photos.column.taken": "Taken",
        "report.photos.column.answer": "Classifier's answer",
        "report.photos.column.certainty": "Certainty",
        "report.photos.answer.suspicious": "Suspicious: see a dermatologist",
        "report.photos.answer.uncertain": "Uncertain: see a dermatologist",
        "report.photos.answer.notSuspicious": "Not suspicious: keep watching it",
        "report.photos.answer.none": "No answer yet",
        "report.care.heading": "Care tracking",
        "report.care.caption": "Patterns the care team was told of",
        "report.care.column.pattern": "Pattern",
        "report.care.column.from": "First reading",
        "report.care.column.to": "Last reading",
        "report.care.rule.sustainedStage2BloodPressure": "Blood pressure at stage 2 or higher in consecutive readings",
        "report.care.rule.risingFastingGlucose": "Fasting glucose rising into a higher category",
        "report.care.rule.npiPrognosticGroupChanged": "NPI prognostic group changed",
        "report.care.rule.persistentHighSodium": "Sodium at or above the WHO limit on 5 of 7 days, with high blood pressure",
        "report.npi.column.tumourSize": "Tumour size",
        "report.npi.column.grade": "Grade",
        "report.npi.column.nodes": "Lymph nodes",
        "report.npi.nodeStage": "stage {stage}",
        "report.npi.positiveNodes": "{count} positive (stage {stage})",
        "report.npi.entryTitle": "Nottingham Prognostic Index, diagnosis of {date}",
        "report.npi.entryCaption": "Every detail of this entry",
        "report.npi.entryCurveTitle": "Survival curve of its group (illustrative)",
        "report.npi.row.recordedBy": "Entered by",
        "report.npi.row.ruleSet": "Rule set",
        "report.npi.row.advice": "Advice",

        "report.exam.heading": "Exam results",
        "report.exam.caption": "Exam {exam} from {institution}, reported {date}",
        "report.exam.summary": "Released reports: {reports}. Results outside the reference range, marked ▲: {outside}.",
        "report.exam.column.test": "Test",
        "report.exam.column.value": "Value",
        "report.exam.column.result": "Result",
        "report.exam.column.advice": "Advice",

        "report.melanoma.heading": "Melanoma risk",
        "report.melanoma.latest": "Latest profile ({date}): {category} risk.",
        "report.melanoma.latestFlagged": "Latest profile ({date}): {category} risk ▲ ({severity}).",
        "report.melanoma.advice": "Check your skin every {months} months; see a clinician about any mole that changes.",

        "report.environment.heading": "UV index and air quality: {area}",
        "report.environment.none": "No readings in this period.",
        "report.environment.summary":
            "Days with readings: {days}. Highest UV index: {uv}. Highest air quality index (US AQI): {aqi}. Days at or above UV 6 or AQI 101 are marked ▲.",
        "report.environment.uvTitle": "Daily maximum UV index",
        "report.environment.aqiTitle": "Daily maximum air quality index (US AQI)",
    ]
}

extension TipTexts {
    /// The text of `key` in this language (else English) with each `{name}` replaced by its value; the key itself
    /// when no language has it, so a missing text shows rather than vanishes.
    public func filled(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = self.text(key) ?? key
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }
}
