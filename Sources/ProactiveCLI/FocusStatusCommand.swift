import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus status

struct FocusStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show which Focus is on and what each app's Focus filter applies.",
        discussion: """
            For each app with a Focus filter: the values it has now (what its last perform() \
            received), the filter predicate its notifications are checked against, and its badge \
            count in this Focus.

            Example:
              proactive focus status
              proactive focus status --at 2026-11-16T10:00:00-08:00
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("When: \(DateArgument.help). Default: now.", valueName: "date"), transform: DateArgument.transform)
    var at: DateArgument?

    func run() throws {
        let session = try FocusSession(storeOptions)
        let reading = try at?.read(nil, user: nil, flag: "--at")
        let date = reading?.date ?? Date()
        let status = try session.engine.focusStatus(at: date)
        print("Focus at \(FocusSession.format(date, offset: reading?.utcOffset)): "
              + FocusSession.describe(status.state, timeline: status.timeline, ids: status.scheduleIDs, offset: reading?.utcOffset))
        for app in status.apps {
            var line = "\(app.app): \(FocusSession.describe(app.values, filter: app.filter))\(app.configured ? "" : " (defaults)")"
            if let predicate = app.predicate { line += "; predicate \(predicate)" }
            if let badge = app.badge { line += "; badge \(badge)" }
            print(line)
        }
    }
}
