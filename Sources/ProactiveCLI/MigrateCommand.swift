import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive migrate

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Check and apply intents that migrate legacy intents (migratesFrom).",
        discussion: """
            Both files are intent definition files. Each new intent with "migratesFrom": \
            "LegacyName" is compared with the legacy intent of that name: parameters keep their \
            names and equivalent types (same type; int -> double; entity of another type name; \
            enum with at least the legacy cases). Allowed: adding, removing, making an optional \
            parameter required. Refused: a changed type, removed enum cases, required -> optional, \
            and a removal paired with an addition of the same type (a likely rename).

            Example:
              proactive migrate check --legacy legacy-intents.json --new app-intents.json
              proactive migrate apply --legacy legacy-intents.json --new app-intents.json
            """,
        subcommands: [Check.self, Apply.self]
    )

    struct Files: ParsableArguments {
        @Option(help: "The legacy intent definitions (JSON).")
        var legacy: String

        @Option(name: .customLong("new"), help: "The new intent definitions (JSON), with migratesFrom.")
        var newDefinitions: String

        @Flag(help: "Treat a removed and an added parameter of the same type as intended, not as a rename.")
        var allowRemoveAdd = false

        /// Parses both files, prints the reports, and returns the plan.
        func plan() throws -> MigrationPlan {
            func load(_ path: String) throws -> [IntentDefinition] {
                do { return try IntentDefinitionSet.parse(try readTextFile(path)) } catch let error as DefinitionError {
                    throw CommandFailure(description: "\(path): \(error)")
                }
            }
            let plan = MigrationPlan(legacy: try load(legacy), new: try load(newDefinitions), detectRenames: !allowRemoveAdd)
            for report in plan.reports { print(report) }
            for problem in plan.problems { print("refused: \(problem)") }
            return plan
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Compare legacy and new definitions; exit 1 when the migration would be refused.",
            discussion: """
                Example:
                  proactive migrate check --legacy legacy-intents.json --new app-intents.json
                """)

        @OptionGroup var files: Files

        func run() throws {
            let plan = try files.plan()
            if let refusal = plan.refusal { throw CommandFailure(description: "migration refused: \(refusal)") }
            print("migration is compatible")
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Store the new definitions so legacy donations, shortcuts and widgets resolve to the new intents.",
            discussion: """
                Refused (nothing stored, exit 1) when the check fails, naming the parameter. The \
                new file's apps have their stored definitions replaced by the new file's; \
                definitions of other apps are kept.

                Example:
                  proactive migrate apply --legacy legacy-intents.json --new app-intents.json
                """)

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var files: Files

        func run() throws {
            let plan = try files.plan()
            if let refusal = plan.refusal { throw CommandFailure(description: "migration refused: \(refusal)") }
            let counts = try storeOptions.openEngine().applyMigration(plan)
            for (report, legacyCount) in zip(plan.reports, counts) {
                print("applied: \(report.app) \(report.legacyIntent) -> \(report.newIntent) (\(legacyCount) stored legacy donations now count for \(report.newIntent))")
            }
        }
    }
}
