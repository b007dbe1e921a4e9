import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore

// MARK: - proactive focus filter configure

struct FocusFilterConfigureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract: "Set an app's Focus filter values for one Focus.",
        discussion: """
            Values: bool true/false (on/off, yes/no), number, string, entity id (one of the \
            declared options when it lists some). NAME= (empty) or --unset NAME removes a value \
            (a required parameter goes back to its default). Values not named are kept. Prints \
            the display representation, and the perform() call when that Focus is on now.

            Example:
              proactive focus filter configure --app com.example.mail \\
                --focus personal account=personal alwaysUseDarkMode=true
              proactive focus filter configure --app com.example.mail \\
                --focus personal --unset status
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The app whose filter is configured.")
    var app: String

    @Option(help: "The Focus these values apply in.")
    var focus: String

    @Argument(help: ArgumentHelp("Values to set.", valueName: "name=value"))
    var settings: [String] = []

    @Option(help: ArgumentHelp("A value to remove (repeatable).", valueName: "name"))
    var unset: [String] = []

    func validate() throws {
        guard !settings.isEmpty || !unset.isEmpty else { throw ValidationError("give at least one NAME=VALUE or --unset NAME") }
        guard !FocusName.normalize(focus).isEmpty else { throw ValidationError("--focus needs a non-empty Focus name") }
    }

    func run() throws {
        try storeOptions.access.require(app: app, to: "configure the Focus filter of")
        let session = try FocusSession(storeOptions, appMode: .scoped)
        var engine = try session.engine()
        guard let filter = engine.filter(app: app) else {
            throw CommandFailure(description: "\(app) has not declared a Focus filter (proactive focus filter define --app \(app) FILE)")
        }
        var values: [String: ParameterValue] = [:]
        var removed = unset
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("values are NAME=VALUE, found \"\(setting)\"") }
            guard let parameter = filter.parameter(named: parts[0]) else {
                throw CommandFailure(description: "\(parts[0]): not a parameter of \(app)'s Focus filter (it has: \(filter.parameters.map(\.name).joined(separator: ", ")))")
            }
            if parts[1].isEmpty { removed.append(parts[0]); continue }
            do { values[parts[0]] = try parameter.value(fromText: parts[1]) } catch { throw error.failure() }
        }
        let focusName = FocusName.normalize(focus)
        let previous = engine.configuredValues(app: app, focus: focusName)
        do { try engine.configure(app: app, focus: focusName, set: values, unset: removed) } catch { throw error.failure() }
        try session.filters.replaceValues(app: app, focus: focusName, engine.configuredValues(app: app, focus: focusName))

        let display = filter.displayRepresentation(configured: engine.configuredValues(app: app, focus: focusName))
        print("\(app) in \(focusName): \(display.primary)")
        print("  \(display.secondary)")
        let now = Date()
        if try session.timeline().timeline.focus(at: now) == focusName, previous != engine.configuredValues(app: app, focus: focusName) {
            let values = engine.currentValues(app: app, activeFocus: focusName) ?? [:]
            print(FocusSession.describe(FocusFilterPerform(app: app, focus: focusName, values: values, reason: .configured), engine: engine))
        }
    }
}
