import CaretideRuntime

extension LogKey {
    static let areaCode = "areaCode"
    static let subscribers = "subscribers"
    static let notified = "notified"
    static let loadMilliseconds = "loadMs"
    static let decideMilliseconds = "decideMs"
    static let saveMilliseconds = "saveMs"
    static let deliverMilliseconds = "deliverMs"
    static let webhookID = "webhookId"
    static let attempts = "attempts"
    static let emailID = "emailId"
}
