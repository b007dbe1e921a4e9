import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive shortcuts

struct ShortcutsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcuts",
        abstract: "Declare and list apps' relevant shortcuts (what Widget Suggestions may insert, and when).",
        discussion: """
            Each `set` replaces the app's whole set: a shortcut left out of the file is withdrawn at once, \
            and an empty array withdraws them all. With --as-app A only A's set can be replaced and listed. The file format is documented in RelevantShortcutCodec \
            (and docs/RANKING.md).

            Example:
              proactive shortcuts set --app com.example.bank purchases.json \\
                --at 2026-11-20T09:41:00-08:00
              proactive shortcuts list --user me
            """,
        subcommands: [SetSubcommand.self, ListSubcommand.self])

    struct SetSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Replace an app's relevant shortcuts with those in FILE.",
            discussion: """
                Example:
                  echo '[{"widgetKind": "com.example.calendar.upnext",
                    "role": "information",
                    "relevanceProviders": [{"kind": "date",
                      "start": "2026-11-20T09:30:00-08:00",
                      "end": "2026-11-20T10:30:00-08:00"}]}]' > meeting.json
                  proactive shortcuts set --user me --app com.example.calendar meeting.json
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The declaring app (may also be given in the file).")
        var app: String?

        @Option(help: "Whose stack.")
        var user: String = Donation.defaultUser

        @Option(parsing: .unconditional, help: ArgumentHelp("When the app declared the set (\"new content\" counts from here): \(DateArgument.help). Default: now.",
                                   valueName: "date"), transform: DateArgument.transform)
        var at: DateArgument?

        @Argument(help: "The shortcuts file (JSON).")
        var file: String

        func run() throws {
            let engine = try storeOptions.openEngine(appMode: .scoped)
            let reading = try at?.read(engine, user: user, flag: "--at")
            let date = reading?.date ?? Date()
            let set: RelevantShortcutSet
            do {
                set = try RelevantShortcutCodec.decode(try readTextFile(file), app: app, declaredAt: date)
            } catch let error as DeclarationError {
                throw declarationFailure(file, error)
            }
            let offset = reading?.utcOffset ?? TimeZone.current.secondsFromGMT(for: date)
            let previous = try engine.declareShortcuts(set, user: user, utcOffset: offset)
            print("\(set.app): \(set.shortcuts.count) relevant shortcut\(set.shortcuts.count == 1 ? "" : "s") for \(user)"
                  + (previous.map { " (replacing \($0))" } ?? ""))
        }
    }

    struct ListSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List a user's relevant shortcuts by app.",
            discussion: "Example:\n  proactive shortcuts list --user me --json")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Whose stack.")
        var user: String = Donation.defaultUser

        @Flag(help: "Print one canonical JSON object per app (the `set` file format).")
        var json = false

        func run() throws {
            let engine = try storeOptions.openEngine(.mustExist, appMode: .scoped).warningAboutSkippedData()
            let declarations = try engine.visibleDeclarations(user: user)
            let format = try userDateFormat(engine, user: user)
            for app in declarations.shortcuts.sets.keys.sorted() {
                let set = declarations.shortcuts.sets[app]!
                if json { print(RelevantShortcutCodec.encode(set, utcOffset: format.offset(set.declaredAt))); continue }
                print("\(app) (declared \(format.text(set.declaredAt)))")
                for shortcut in set.shortcuts {
                    let providers = shortcut.providers.isEmpty ? "new content" : shortcut.providers.map { Self.describe($0, format) }.joined(separator: ", ")
                    print("  \(shortcut.widget.key) [\(shortcut.role.rawValue)]: \(providers)")
                }
            }
        }

        static func describe(_ provider: RelevanceProvider, _ format: UserDateFormat) -> String {
            switch provider {
            case let .date(start, end):
                return "\(format.text(start)) to \(format.text(end))"
            case let .location(latitude, longitude, radius, identifier):
                return "location \(identifier ?? "") (\(latitude), \(longitude), \(radius) m; watch face only)"
            case let .dailyRoutine(situation):
                return "daily routine \(situation) (watch face only)"
            }
        }
    }
}

// MARK: - proactive timeline

struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Declare and list widgets' timelines with relevance (what Smart Rotate reads).",
        discussion: """
            `set` replaces the timeline of each widget in FILE (one timeline object or an array); a \
            timeline without entries removes it. Format: WidgetTimelineCodec (and docs/RANKING.md). \
            With --as-app A only A's widgets' timelines can be replaced and listed.

            Example:
              proactive timeline set --user me datasets/sample/declarations/timelines.json
              proactive timeline list --user me
            """,
        subcommands: [SetSubcommand.self, ListSubcommand.self])

    struct SetSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Replace the timelines of the widgets in FILE.",
            discussion: """
                Example:
                  echo '{"app": "com.example.bank",
                    "widgetKind": "com.example.bank.recentpurchases",
                    "entries": [{"date": "2026-11-20T09:41:00-08:00",
                      "score": 52.6, "duration": 1800}]}' > purchases.json
                  proactive timeline set --user me purchases.json
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Whose stack.")
        var user: String = Donation.defaultUser

        @Argument(help: "The timelines file (JSON).")
        var file: String

        func run() throws {
            let timelines: [WidgetTimeline]
            do {
                timelines = try WidgetTimelineCodec.decode(try readTextFile(file))
            } catch let error as DeclarationError {
                throw declarationFailure(file, error)
            }
            try storeOptions.openEngine(appMode: .scoped).replaceTimelines(timelines, user: user)
            for timeline in timelines {
                print("\(timeline.widget.key): \(timeline.entries.count) entr\(timeline.entries.count == 1 ? "y" : "ies") for \(user)")
            }
        }
    }

    struct ListSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List a user's widget timelines.",
            discussion: "Example:\n  proactive timeline list --user me")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Whose stack.")
        var user: String = Donation.defaultUser

        @Flag(help: "Print one canonical JSON object per widget (the `set` file format).")
        var json = false

        func run() throws {
            let engine = try storeOptions.openEngine(.mustExist, appMode: .scoped).warningAboutSkippedData()
            let declarations = try engine.visibleDeclarations(user: user)
            let format = try userDateFormat(engine, user: user)
            for timeline in declarations.timelines.sorted {
                if json { print(WidgetTimelineCodec.encode(timeline, utcOffset: timeline.entries.first.map { format.offset($0.date) } ?? 0)); continue }
                print("\(timeline.widget.key) (best score \(RelevanceSignals.number(timeline.maximumScore)))")
                for entry in timeline.entries {
                    let date = format.text(entry.date)
                    guard let relevance = entry.relevance else { print("  \(date)  no relevance"); continue }
                    let holds = relevance.duration > 0 ? "for \(RelevanceSignals.number(relevance.duration)) s" : "until the next entry"
                    print("  \(date)  score \(RelevanceSignals.number(relevance.score)) \(holds)")
                }
            }
        }
    }
}

/// Dates written on the user's configured clock (UTC when none is configured).
struct UserDateFormat {
    var zone: TimeZone?
    func offset(_ date: Date) -> Int { zone?.secondsFromGMT(for: date) ?? 0 }
    func text(_ date: Date) -> String { Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: offset(date)) }
}

func userDateFormat(_ engine: Engine, user: String) throws -> UserDateFormat {
    UserDateFormat(zone: try parseTimeZone(try engine.timeZone(forUser: user)))
}

/// `FILE:LINE: reason` for syntax errors, `FILE: path: reason` otherwise.
func declarationFailure(_ file: String, _ error: DeclarationError) -> CommandFailure {
    var copy = error
    let line = copy.line
    copy.line = nil
    return CommandFailure(description: line.map { "\(file):\($0): \(copy)" } ?? "\(file): \(copy)")
}
