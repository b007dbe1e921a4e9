import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus set

struct FocusSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Turn a Focus on by hand, or turn Focus off with --clear.",
        discussion: """
            The change holds until the next manual change or the next schedule boundary. Prints \
            the Focus now on and each app's perform() call: the values its Focus filter now has, \
            or its defaults when earlier values stop applying.

            Example:
              proactive focus set personal
              proactive focus set --clear --at 2026-11-16T15:00:00-08:00
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The Focus to turn on (e.g. work, personal, sleep).")
    var name: String?

    @Flag(help: "Turn Focus off (until the next schedule boundary).")
    var clear = false

    @Option(parsing: .unconditional, help: ArgumentHelp("When: \(DateArgument.help). Default: now.", valueName: "date"), transform: DateArgument.transform)
    var at: DateArgument?

    func validate() throws {
        guard (name != nil) != clear else { throw ValidationError("give a Focus name or --clear (not both)") }
        if let name {
            do { _ = try FocusName.validated(name) } catch { throw ValidationError(error.reason) }
        }
    }

    func run() throws {
        let session = try FocusSession(storeOptions)
        let reading = try at?.read(nil, user: nil, flag: "--at")
        let date = reading?.date ?? Date()
        let focus = name.map(FocusName.normalize)
        let change = try session.engine.setFocus(focus, at: date)
        print("Focus: \(FocusSession.describe(change.state, timeline: change.timeline, ids: change.scheduleIDs, offset: reading?.utcOffset))")
        for perform in change.performs { print(FocusSession.describe(perform.event, filter: perform.filter)) }
    }
}
