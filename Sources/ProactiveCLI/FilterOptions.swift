import ArgumentParser
import ProactiveStore

// MARK: - Which donations

/// `--user`, `--app`, `--after`, `--before`, shared by export, stats and delete.
///
/// Dates select the half-open span `[after, before)`: `--before D` and
/// `--after D` split the history at D without overlap.
struct FilterOptions: ParsableArguments {
    @Option(help: "Only this user's donations.")
    var user: String?

    @Option(help: "Only this app's donations (bundle identifier).")
    var app: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only donations at or after this date: \(DateArgument.help).", valueName: "date"),
            transform: DateArgument.transform)
    var after: DateArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only donations strictly before this date.", valueName: "date"),
            transform: DateArgument.transform)
    var before: DateArgument?

    var filter: DonationFilter {
        DonationFilter(user: user, app: app, dates: DateSpan(start: after?.date, end: before?.date))
    }

    var isEmpty: Bool { filter.matchesEverything }

    func validate() throws {
        if let after, let before, after.date >= before.date {
            throw ValidationError("--after must be earlier than --before (the span [after, before) is empty)")
        }
        if user?.isEmpty == true || app?.isEmpty == true {
            throw ValidationError("--user and --app need a non-empty value")
        }
    }
}
