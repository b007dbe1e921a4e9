import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive copy

struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a whole store into a new one: a SQLite file to PostgreSQL, or back.",
        discussion: """
            Copies donations (every field, in order: `export` of both prints the same bytes), users' \
            time zones, intent definitions, relevant shortcuts, widget timelines and feedback, Focus \
            schedules, changes and filters, retention windows and the recording pause. The target must \
            be new (no donations, definitions or Focus data; a database is given the schema). Saved \
            models are not copied: run `proactive train --store TARGET` afterwards. For the device owner only.

            Example:
              proactive copy --from me.sqlite --to postgres://db.example/proactive
              proactive copy --from postgres://db.example/proactive --to back.sqlite
            """)

    @Option(name: .long, help: ArgumentHelp("The store to copy: a file or a postgres:// URL.", valueName: "store"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("The new store to copy into: a file or a postgres:// URL.", valueName: "store"))
    var to: String

    func run() throws {
        let source = try StoreOptions.named(from).openEngine(.mustExist)
        let target = try StoreOptions.named(to)
        let report = try source.copy(to: try target.openEngine(.createIfMissing)) { copied in
            ImportProgressPrinter.writeError("\r\(copied) donations copied")
        }
        ImportProgressPrinter.writeError("\n")
        print("copied \(report.donations) donations, \(report.definitions) definitions, \(report.userTimeZones) time zones, "
              + "\(report.shortcutSets) shortcut sets, \(report.timelines) timelines, \(report.feedback) feedback events, "
              + "\(report.focusSchedules) Focus schedules, \(report.focusChanges) Focus changes, \(report.focusFilters) Focus filters "
              + "into \(target.displayName)")
    }
}
