import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus schedule

struct FocusScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Add, list or remove the schedules that turn a Focus on.",
        discussion: """
            Examples:
              proactive focus schedule add work --days Mon-Fri \\
                --start 09:00 --end 17:30 --timezone America/Los_Angeles
              proactive focus schedule add sleep --days daily --start 22:00 --end 07:00
              proactive focus schedule list
              proactive focus schedule remove 2
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a schedule: a Focus on during a daily time span on chosen weekdays.",
            discussion: """
                --days takes Mon-Fri, Mon,Wed,Fri, Fri-Mon, weekdays, weekends or daily. An end \
                time not after the start runs to the next day (22:00-07:00). Times are read in \
                --timezone (default: this machine's zone), daylight saving included. Prints the \
                new schedule's id.

                Example:
                  proactive focus schedule add work --days Mon-Fri \\
                    --start 09:00 --end 17:30 --timezone America/Los_Angeles
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: "The Focus the schedule turns on.")
        var focus: String

        @Option(help: "Weekdays the Focus starts on.")
        var days: String

        @Option(help: ArgumentHelp("Start time, HH:MM (24-hour).", valueName: "HH:MM"))
        var start: String

        @Option(help: ArgumentHelp("End time, HH:MM (24-hour).", valueName: "HH:MM"))
        var end: String

        @Option(name: .customLong("timezone"), help: "IANA time zone of the times (default: this machine's).")
        var timeZone: String?

        /// The spelling of earlier builds (`--time-zone`), still accepted, not listed.
        @Option(name: .customLong("time-zone"), help: .hidden)
        var legacyTimeZone: String?

        func schedule() throws -> FocusSchedule {
            if timeZone != nil, legacyTimeZone != nil { throw ValidationError("give --timezone once (--time-zone is its old spelling)") }
            let zone = try parseTimeZone(timeZone ?? legacyTimeZone) ?? TimeZone.current
            do {
                return try FocusSchedule(focus: focus, weekdays: FocusSchedule.parseWeekdays(days),
                                         start: FocusSchedule.parseTime(start, field: "start"), end: FocusSchedule.parseTime(end, field: "end"),
                                         timeZone: zone)
            } catch {
                throw ValidationError("--\(error.description)")
            }
        }

        func validate() throws { _ = try schedule() }

        func run() throws {
            let schedule = try schedule()
            let id = try storeOptions.openEngine().addFocusSchedule(schedule)
            print("schedule \(id): \(schedule.focus) \(schedule.summary)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the schedules with their ids.",
            discussion: """
                Example:
                  proactive focus schedule list
                """)

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let (timeline, ids) = try FocusSession(storeOptions, mode: .mustExist).timeline()
            if ids.isEmpty { print("no Focus schedules"); return }
            for (id, schedule) in zip(ids, timeline.schedules) { print("\(id)\t\(schedule.focus)\t\(schedule.summary)") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a schedule by id.",
            discussion: """
                Example:
                  proactive focus schedule remove 2
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: "The schedule id (see focus schedule list).")
        var id: Int64

        func run() throws {
            guard try storeOptions.openEngine(.mustExist).removeFocusSchedule(id: id) else {
                throw CommandFailure(description: "no Focus schedule has id \(id) (see proactive focus schedule list)")
            }
            print("removed schedule \(id)")
        }
    }
}
