import ArgumentParser
import CaretideIdentity
import Foundation

/// `caretide token`: prints a bearer token signed by the development key `caretide dev` trusts (made in the state
/// directory if it is not there yet). For trying the API on a laptop; production tokens come from the identity
/// provider.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Mint a development bearer token for the services `caretide dev` runs.")

    @Option(help: "patient, institution, consultant, operator or service.") var role: String
    @Option(help: "The subject id (the patient id for a patient, the doctor id for a consultant).") var subject: String
    @Option(help: "The institution a member of staff acts for (required with --role institution).") var institution: String?
    @Option(help: "A scope of a service client (repeatable): \(ServiceScope.all.joined(separator: ", ")).")
    var scope: [String] = []
    @Option(help: "Lifetime: seconds, or a number with s, m, h or d.") var ttl = "1h"
    @Option(help: "The state directory of `caretide dev`.") var stateDir = ".caretide"

    func validate() throws {
        guard Role(rawValue: role) != nil else {
            throw ValidationError("--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if role == Role.institution.rawValue, institution?.isEmpty ?? true {
            throw ValidationError("--role institution needs --institution")
        }
        guard let seconds = Self.seconds(ttl), seconds > 0, seconds <= 30 * 86_400 else {
            throw ValidationError("--ttl must be a positive duration up to 30d, e.g. 3600, 90m, 1h, 7d")
        }
    }

    func run() async throws {
        let issuer = try TokenIssuer.development(in: URL(fileURLWithPath: stateDir).standardizedFileURL)
        let identity = Identity(
            subject: subject, role: Role(rawValue: role)!, institutionID: role == Role.institution.rawValue ? institution : nil,
            scopes: Set(scope))
        print(try await issuer.token(for: identity, lifetime: .seconds(Self.seconds(ttl)!)))
    }

    /// `3600`, `90s`, `30m`, `1h`, `7d` in seconds.
    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let value = Int(text) { return value }
        guard let unit = text.last.flatMap({ units[$0] }), let value = Int(text.dropLast()) else { return nil }
        return value * unit
    }
}
