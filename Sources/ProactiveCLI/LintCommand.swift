import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveLab

// MARK: - proactive lint

/// Warns about donation parameters that defeat pattern finding.
struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Warn about donation parameters that behave like timestamps or never repeat.",
        discussion: """
            Donations should be repeatable and carry no timestamps in the payload: when a parameter that \
            decides the target (through the intent's supported combination) takes a new value every time, \
            every donation becomes a new target and no pattern is learned. Each warning names the app, the \
            intent, the parameter and how many distinct values it took. Exit status 0 unless --strict finds warnings.

            Example:
              proactive lint --store proactive.sqlite --definitions intents.json
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this user's donations.")
    var user: String?

    @Option(help: "Intent definitions (JSON) overlaying the stored ones.")
    var definitions: String?

    @Option(help: "Intents with fewer donations are not judged.")
    var minimumDonations: Int = 5

    @Flag(help: "Exit with status 1 when there are warnings.")
    var strict = false

    @Flag(help: "Print JSON: {\"warnings\": [...], \"donations\": N, \"users\": N}.")
    var json = false

    func validate() throws {
        guard minimumDonations >= 1 else { throw ValidationError("--minimum-donations must be at least 1") }
    }

    func run() async throws {
        var engine = try storeOptions.openEngine(.mustExist)
        engine.definitionsOverlay = try loadDefinitions(definitions).definitions
        let users = try user.map { [$0] } ?? engine.users()
        var donations: [Donation] = []
        for user in users { donations += try engine.donations(forUser: user) }
        let definitions = try engine.definitions()
        let warnings = DonationLint(minimumDonations: minimumDonations).check(donations, definitions: definitions)
        if json {
            print(JSONWriter.string(.object([
                ("warnings", .array(warnings.map { .string("\($0)") })),
                ("donations", .number(Double(donations.count), integer: Int64(donations.count))),
                ("users", .number(Double(users.count), integer: Int64(users.count))),
            ])))
            if strict, !warnings.isEmpty { throw ExitCode.failure }
            return
        }
        for warning in warnings { print("warning: \(warning)") }
        print("\(warnings.count) warning\(warnings.count == 1 ? "" : "s") in \(donations.count) donations of \(users.count) user\(users.count == 1 ? "" : "s")")
        if strict, !warnings.isEmpty { throw ExitCode.failure }
    }
}
