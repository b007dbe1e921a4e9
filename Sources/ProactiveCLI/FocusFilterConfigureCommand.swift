import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

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
        do { _ = try FocusName.validated(focus, field: "--focus") } catch { throw ValidationError("--focus: \(error.reason)") }
    }

    func run() throws {
        try storeOptions.access.require(app: app, to: "configure the Focus filter of")
        var texts: [(name: String, value: String)] = []
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("values are NAME=VALUE, found \"\(setting)\"") }
            texts.append((parts[0], parts[1]))
        }
        let engine = try storeOptions.openEngine(appMode: .scoped)
        let configured: Engine.ConfiguredFilter
        do { configured = try engine.configureFocusFilter(app: app, focus: focus, set: texts, unset: unset) } catch let error as FocusError {
            throw error.failure()
        } catch let error as EngineError {
            let hint = error.description.hasSuffix("has not declared a Focus filter") ? " (proactive focus filter define --app \(app) FILE)" : ""
            throw CommandFailure(description: error.description + hint)
        }
        print("\(app) in \(configured.focus): \(configured.display.primary)")
        print("  \(configured.display.secondary)")
        if let perform = configured.perform {
            print(FocusSession.describe(perform, filter: configured.filter))
        }
    }
}
