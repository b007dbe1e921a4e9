import ArgumentParser
import ProactiveEngine

// MARK: - Which donations

/// `--user`, `--app`, `--after`, `--before`, shared by export, stats and delete.
///
/// Dates select the half-open span `[after, before)`: `--before D` and
/// `--after D` split the history at D without overlap. A day or a local time
/// is read on `--user`'s clock (`DateArgument`): `--user alice --before
/// 2026-10-20` is midnight in Alice's zone; without `--user`, in UTC.
struct FilterOptions: ParsableArguments {
    @Option(help: "Only this user's donations.")
    var user: String?

    @Option(help: "Only this app's donations (bundle identifier).")
    var app: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only donations at or after this date: \(DateArgument.help).", valueName: "date"),
            transform: DateArgument.transform)
    var after: DateArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only donations strictly before this date (a day: its local midnight).",
                                                        valueName: "date"),
            transform: DateArgument.transform)
    var before: DateArgument?

    /// The filter, its dates read on `--user`'s clock (in `engine`'s store, as its acting party).
    func filter(_ engine: Engine) throws -> DonationFilter {
        let start = try after?.read(engine, user: user, flag: "--after").date
        let end = try before?.read(engine, user: user, flag: "--before").date
        if let start, let end, start >= end {
            throw ValidationError("--after must be earlier than --before (the span [after, before) is empty)")
        }
        return DonationFilter(user: user, app: app, dates: DateSpan(start: start, end: end))
    }

    /// No criterion given.
    var isEmpty: Bool { user == nil && app == nil && after == nil && before == nil }

    func validate() throws {
        if case let .instant(start, _)? = after?.written, case let .instant(end, _)? = before?.written, start >= end {
            throw ValidationError("--after must be earlier than --before (the span [after, before) is empty)")
        }
        if user?.isEmpty == true || app?.isEmpty == true {
            throw ValidationError("--user and --app need a non-empty value")
        }
    }
}
