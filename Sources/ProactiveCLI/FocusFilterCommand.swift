import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus filter

struct FocusFilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Declare an app's Focus filter, configure it per Focus, show what is configured.",
        discussion: """
            Declaration (JSON):
              {"app": "com.example.mail", "title": "Set account and appearance",
               "description": "Choose the account and look of Mail in this Focus",
               "parameters": [
                 {"name": "alwaysUseDarkMode", "title": "Always use dark mode", "type": "bool",
                  "optional": false, "default": false},
                 {"name": "status", "title": "Status", "type": "string"},
                 {"name": "account", "title": "Account", "type": "entity", "entityType": "Account",
                  "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}],
                  "matches": "account"}]}
            Types: bool, string, number, entity. Parameters are optional unless "optional": false, \
            which needs a "default". "matches": KEY makes the configured value filter suggestions \
            (targets whose parameter KEY differs are hidden) and notifications (criteria KEY=other \
            are silenced).

            Example:
              proactive focus filter define --app com.example.mail mail-filter.json
              proactive focus filter configure --app com.example.mail \\
                --focus personal account=personal
              proactive focus filter show --app com.example.mail
            """,
        subcommands: [Define.self, FocusFilterConfigureCommand.self, FocusFilterShowCommand.self]
    )

    struct Define: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "define",
            abstract: "Declare (or replace) an app's Focus filter from a JSON file.",
            discussion: """
                The file's "app" may be omitted; when present it must be --app (an app declares \
                only its own filter). Replacing a declaration keeps the configured values that \
                still fit it and drops the others (they are listed).

                Example:
                  proactive focus filter define --app com.example.mail mail-filter.json
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The declaring app's bundle identifier.")
        var app: String

        @Argument(help: "The declaration (JSON).")
        var file: String

        func run() throws {
            let filter: FocusFilter
            do { filter = try FocusFilter.parse(try readTextFile(file), app: app) } catch let error as FocusError { throw error.failure(file: file) }
            try storeOptions.access.require(app: app, to: "declare the Focus filter of")
            let declared = try storeOptions.openEngine(appMode: .scoped).declareFocusFilter(filter)
            for (focus, name) in declared.dropped { print("dropped \(focus): \(name) (no longer fits the declaration)") }
            let names = filter.parameters.map { "\($0.name) (\($0.type)\($0.isOptional ? ", optional" : ", default \($0.displayText($0.defaultValue!))"))" }
            print("\(app): \(filter.title): \(names.joined(separator: ", "))")
        }
    }
}
