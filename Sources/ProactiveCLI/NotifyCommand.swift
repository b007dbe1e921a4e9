import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive notify

struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Decide whether an app's notification is delivered or silenced in the active Focus.",
        discussion: """
            Criteria are KEY=VALUE pairs separated by commas (the notification's filterCriteria). \
            The notification is silenced when it carries criteria that do not match the app's \
            filter predicate in the active Focus (a clause about a key the criteria lack does not \
            match); delivered when no Focus is on, the app has no predicate there, or it carries \
            no criteria. Prints "delivered" or "silenced" with the reason, and the app's badge \
            count in that Focus when it set one. Exit status 0 either way.

            Example:
              proactive notify --app com.example.mail --criteria account=work
              proactive notify --app com.example.mail --criteria account=personal \\
                --at 2026-11-21T10:00:00-08:00
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The notifying app.")
    var app: String

    @Option(help: ArgumentHelp("The notification's filter criteria.", valueName: "key=value,..."))
    var criteria: String = ""

    @Option(parsing: .unconditional, help: ArgumentHelp("When: \(DateArgument.help). Default: now.", valueName: "date"), transform: DateArgument.transform)
    var at: DateArgument?

    @Flag(help: "Print JSON: delivered, reason, focus, predicate, badge.")
    var json = false

    func validate() throws {
        do { _ = try FilterCriteria(parsing: criteria) } catch { throw ValidationError("--\(error)") }
    }

    func run() throws {
        let engine = try storeOptions.openEngine()
        let answer = try engine.notificationDecision(app: app, criteria: try FilterCriteria(parsing: criteria), at: try at?.read(nil, user: nil, flag: "--at").date ?? Date())
        if json {
            print(JSONWriter.string(answer.json))
        } else {
            print("\(answer.decision.isDelivered ? "delivered" : "silenced"): \(answer.decision.reason)")
            if let badge = answer.badge { print("badge \(app) in \(answer.focus!): \(badge)") }
        }
    }
}
