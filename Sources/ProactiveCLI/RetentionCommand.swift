import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive retention

struct RetentionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Show, set and apply how long donations are kept (per app; a new store keeps all).",
        discussion: """
            A new store keeps every donation until the owner sets a window. With a window, a \
            donation (and a feedback event) is erased once it is older than its app's window, or \
            the default window for apps without one: before every `import` (which then does not \
            store donations already older than their window, and counts them in its summary), \
            after every `donate`, before `train`, and by `retention apply`, relative to the \
            current time. Erased rows are overwritten on disk and the write-ahead log is \
            truncated. `retention set --keep-all` turns the default window off again. For the \
            device owner only.

            Examples:
              proactive retention show
              proactive retention set --days 14
              proactive retention set --app com.example.health --days 7
              proactive retention set --keep-all
              proactive retention clear --app com.example.health
              proactive retention apply --now 2026-12-01T00:00:00Z
            """,
        subcommands: [Show.self, Set.self, Clear.self, Apply.self],
        defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the default window and every app's own window.",
            discussion: "Example:\n  proactive retention show")

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let policy = try storeOptions.openEngine().retentionPolicy()
            print("default: \(policy.defaultWindow)")
            for app in policy.byApp.keys.sorted() { print("\(app): \(policy.byApp[app]!)") }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the default window, or an app's window with --app.",
            discussion: """
                Takes effect at the next import, donate, train or `retention apply`.

                Example:
                  proactive retention set --app com.example.health --days 7
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The app whose window this is (default: every app without its own).")
        var app: String?

        @Option(help: "Keep donations younger than this many days (1-36500).")
        var days: Int?

        @Flag(help: "Keep everything (no window).")
        var keepAll = false

        func validate() throws {
            guard (days != nil) != keepAll else { throw ValidationError("give --days N or --keep-all") }
            if let days, !RetentionWindow.allowedDays.contains(days) { throw ValidationError("--days must be 1 to 36500, found \(days)") }
            if app?.isEmpty == true { throw ValidationError("--app needs a bundle identifier") }
        }

        func run() throws {
            let window: RetentionWindow = days.map(RetentionWindow.days) ?? .keepAll
            try storeOptions.openEngine().setRetention(window, app: app)
            print("\(app ?? "default"): \(window)")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Remove an app's own window: it follows the default again.",
            discussion: "Example:\n  proactive retention clear --app com.example.health")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The app.")
        var app: String

        func run() throws {
            let removed = try storeOptions.openEngine().clearRetention(app: app)
            print(removed ? "\(app): follows the default window" : "\(app) had no window of its own")
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Erase everything older than its window now.",
            discussion: """
                Prints how many donations were erased per app.

                Example:
                  proactive retention apply
                  proactive retention apply --now 2026-12-01T00:00:00Z
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Apply as of this instant (default: the current time): \(DateArgument.help).", valueName: "date"),
                transform: DateArgument.transform)
        var now: DateArgument?

        func run() throws {
            let report = try storeOptions.openEngine(.mustExist).applyRetention(now: try now?.read(nil, user: nil, flag: "--now").date ?? Date())
            for app in report.donationsByApp.keys.sorted() { print("\(app): erased \(report.donationsByApp[app]!) donations") }
            print("erased \(report.donations) donations and \(report.feedback) feedback events")
        }
    }
}
