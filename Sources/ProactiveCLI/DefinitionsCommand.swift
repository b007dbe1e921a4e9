import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive definitions

/// Stores the intent definitions apps ship, so every command resolves targets
/// (supported parameter combinations, summaries, migrations) the same way.
struct DefinitionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "definitions",
        abstract: "Store and list the apps' intent definitions (parameters, supported combinations, summaries).",
        discussion: """
            A definitions file is what an app ships: its intents, their typed parameters and \
            supported parameter combinations (docs/FORMATS.md). `add` validates the file and replaces \
            the stored definitions of every app the file names; other apps are untouched.

            Examples:
              proactive definitions add datasets/sample/definitions.json
              proactive definitions list
              proactive definitions remove --app com.example.coffee
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Validate a definitions file and store it, replacing those apps' definitions.",
            discussion: "Example: proactive definitions add datasets/sample/definitions.json")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: "The definitions file (JSON: one app object or an array of them).")
        var file: String

        func run() throws {
            let definitions = try loadDefinitions(file).definitions
            guard !definitions.isEmpty else { throw CommandFailure(description: "\(file): defines no app") }
            let apps = try storeOptions.openEngine().storeDefinitions(definitions)
            print("stored \(definitions.count) intent definitions of \(apps.count) apps from \(file)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the stored intent definitions.",
            discussion: "Example: proactive definitions list --json > definitions.json")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print the definitions file format (JSON) instead of a table.")
        var json = false

        func run() throws {
            let definitions = try storeOptions.openEngine(.mustExist).storedDefinitions()
            if json {
                print(JSONWriter.string(IntentDefinitionSet.json(definitions)))
                return
            }
            for definition in definitions {
                var flags: [String] = []
                if !definition.isEligibleForSuggestions { flags.append("not suggested") }
                if let kind = definition.widgetKind { flags.append("widget \(kind)") }
                if let legacy = definition.migratesFrom { flags.append("migrates \(legacy)") }
                let parameters = definition.parameters.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
                print("\(definition.app)\t\(definition.name)(\(parameters))\(flags.isEmpty ? "" : "\t" + flags.joined(separator: ", "))")
                for combination in definition.combinations {
                    print("\t[\(combination.parameters.joined(separator: ", "))] \"\(combination.summary)\"")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an app's stored intent definitions.",
            discussion: "Example: proactive definitions remove --app com.example.coffee")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The app whose definitions are removed.")
        var app: String

        func run() throws {
            let before = try storeOptions.openEngine(.mustExist).removeDefinitions(app: app)
            print("removed \(before) intent definitions of \(app)")
        }
    }
}
