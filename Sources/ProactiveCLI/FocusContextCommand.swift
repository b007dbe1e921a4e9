import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus context

struct FocusContextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Set the app context an app returns for a Focus: filter predicate and badge count.",
        discussion: """
            Predicate: clauses joined by && (or and): KEY == VALUE, KEY != VALUE, KEY in [V1, V2]; \
            values are words or "quoted text". Without a predicate of its own, an app's \
            notifications are checked against the one derived from its configured filter values \
            ("matches" parameters). The badge count is what the app shows in that Focus.

            Example:
              proactive focus context --app com.example.mail --focus personal \\
                --predicate 'account in [personal, family]' --badge 3
              proactive focus context --app com.example.mail --focus personal --clear
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The app (it must have declared a Focus filter).")
    var app: String

    @Option(help: "The Focus this context is for.")
    var focus: String

    @Option(help: "The filter predicate notifications' criteria must match.")
    var predicate: String?

    @Option(help: "The badge count in this Focus.")
    var badge: Int?

    @Flag(help: "Remove the app context for this Focus.")
    var clear = false

    func validate() throws {
        guard clear != (predicate != nil || badge != nil) else { throw ValidationError("give --predicate and/or --badge, or --clear") }
        if let badge, badge < 0 { throw ValidationError("--badge cannot be negative") }
        if let predicate { do { _ = try FilterPredicate(parsing: predicate) } catch { throw ValidationError("--\(error)") } }
    }

    func run() throws {
        try storeOptions.access.require(app: app, to: "set the Focus app context of")
        let engine = try storeOptions.openEngine(appMode: .scoped)
        let focusName: String
        do { focusName = try FocusName.validated(focus) } catch { throw error.failure() }
        let parsed = try predicate.map { text throws(FocusError) in try FilterPredicate(parsing: text) }
        do { try engine.setFocusAppContext(app: app, focus: focusName, AppContext(filterPredicate: parsed, badgeCount: badge)) } catch let error as FocusError {
            throw error.failure()
        }
        if clear {
            print("\(app) in \(focusName): no app context")
        } else {
            print("\(app) in \(focusName): predicate \(parsed.map(\.description) ?? "(derived from the filter values)"), badge \(badge.map(String.init) ?? "(not set)")")
        }
    }
}
