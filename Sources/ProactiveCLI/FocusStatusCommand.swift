import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveRanking

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
        let (timeline, ids) = try session.timeline()
        let state = timeline.state(at: date)
        print("Focus at \(FocusSession.format(date, offset: reading?.utcOffset)): \(FocusSession.describe(state, timeline: timeline, ids: ids, offset: reading?.utcOffset))")
        let engine = try session.filters()
        for app in engine.filters.keys.sorted() {
            let values = engine.currentValues(app: app, activeFocus: state.focus) ?? [:]
            let configured = engine.isConfigured(app: app, focus: state.focus)
            var line = "\(app): \(FocusSession.describe(values, filter: engine.filter(app: app)))\(configured ? "" : " (defaults)")"
            if let predicate = engine.activePredicate(app: app, focus: state.focus) { line += "; predicate \(predicate)" }
            if let badge = engine.badgeCount(app: app, activeFocus: state.focus) { line += "; badge \(badge)" }
            print(line)
        }
    }
}
