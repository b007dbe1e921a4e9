import ArgumentParser

// MARK: - proactive focus

struct FocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "Which Focus is on, its schedules, apps' Focus filters, and people to allow in a Focus.",
        discussion: """
            A Focus is on by hand (focus set) or by a schedule (focus schedule add). A manual \
            change holds until the next manual change or the next schedule boundary (any \
            schedule starting or ending), whichever comes first; elsewhere the schedule covering \
            the instant decides (the latest started when several do). Focus names are \
            case-insensitive. Donations without context.focus and prediction moments get the \
            Focus from this timeline.

            Example:
              proactive focus schedule add work --days Mon-Fri \\
                --start 09:00 --end 17:30 --timezone America/Los_Angeles
              proactive focus set personal
              proactive focus status --at 2026-11-16T10:00:00-08:00
              proactive focus filter define --app com.example.mail mail-filter.json
              proactive focus filter configure --app com.example.mail \\
                --focus personal account=personal
              proactive focus people --focus work
            """,
        subcommands: [FocusSetCommand.self, FocusScheduleCommand.self, FocusStatusCommand.self, FocusFilterCommand.self,
                      FocusContextCommand.self, FocusPeopleCommand.self]
    )
}
