import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive feedback

struct FeedbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Record what the user did with suggestions: impressions, taps, \"not now\", \"never\".",
        discussion: """
            A tap (engagement) is also stored as a donation of what it ran. "not now" (dismiss) lowers the \
            item for a while; "never" hides it, for a target, a widget or a whole app, optionally only in a \
            context (--context focus=work), until "undo-never" with the same scope and context.

            Example:
              proactive feedback add dismiss --user me --widget calendar \\
                --at 2026-11-20T09:35:00-08:00
              proactive feedback add never --user me --app com.example.news \\
                --context focus=work
              proactive feedback list --user me
            """,
        subcommands: [Add.self, Import.self, ListSubcommand.self])

    // MARK: add

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Record one piece of feedback.",
            discussion: """
                Exactly one of --target (a target key, see `proactive suggest --json`), --widget (a widget \
                name as in `proactive stack`) or --app (never/undo-never only).

                Example:
                  proactive feedback add tap --user me \\
                    --target 'com.example.weather:CheckWeatherIntent(location=cupertino)' \\
                    --definitions datasets/sample/definitions.json
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("impression, tap, dismiss, never or undo-never.", valueName: "kind"))
        var kind: String

        @Option(help: "Whose feedback.")
        var user: String = Donation.defaultUser

        @Option(help: "A target key.")
        var target: String?

        @Option(help: "A widget name or key.")
        var widget: String?

        @Option(help: "A whole app (never/undo-never).")
        var app: String?

        @Option(name: .customLong("context"), help: ArgumentHelp("Context (for never: the rule's conditions), repeatable.", valueName: "key=value"))
        var contextValues: [String] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("When: \(DateArgument.help). Default: now.", valueName: "date"), transform: DateArgument.transform)
        var at: DateArgument?

        @Option(help: "Intent definitions (JSON), to resolve targets and configured widgets.")
        var definitions: String?

        func validate() throws {
            guard FeedbackKind(rawValue: kind) != nil else {
                throw ValidationError("kind must be one of \(FeedbackKind.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(kind)\"")
            }
            guard [target, widget, app].compactMap({ $0 }).count == 1 else { throw ValidationError("give exactly one of --target, --widget or --app") }
        }

        func run() throws {
            let kind = FeedbackKind(rawValue: kind)!
            var engine = try storeOptions.openEngine()
            let reading = try at?.read(engine, user: user, flag: "--at")
            let date = reading?.date ?? Date()
            let offset = reading?.utcOffset ?? TimeZone.current.secondsFromGMT(for: date)
            var context: [String: String] = [:]
            for setting in contextValues {
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--context wants KEY=VALUE, found \"\(setting)\"") }
                context[parts[0]] = parts[1]
            }
            engine.definitionsOverlay = try loadDefinitions(definitions).definitions
            engine = engine.warningAboutSkippedData()
            let subject: Engine.FeedbackSubject = target.map { .target($0) } ?? widget.map { .widget($0) } ?? .app(app!)
            let event: FeedbackEvent
            do {
                event = try engine.feedbackEvent(user: user, kind: kind, about: subject, context: context, at: date)
            } catch let error as FeedbackError {
                throw ValidationError(error.reason)
            } catch let error as EngineError where target != nil && error.code == .invalidRequest {
                throw CommandFailure(description: "--target: \(error); `proactive suggest --json` shows target keys")
            }
            try FeedbackCommand.record([event], user: user, offset: offset, engine: engine)
        }
    }

    // MARK: import

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Record feedback events from a JSON Lines file.",
            discussion: """
                One event per line: a JSON object with "date" and "kind" (impression, tap, dismiss, \
                never, undo-never), and what it is about: a "target" key with its "app", a "widget" \
                {"app", "widgetKind", "configuration"}, or an "app" alone; optional "context" (flat \
                strings) and, for a tap, the "action" it ran. docs/FORMATS.md describes every field.

                All lines are checked first; a bad line is reported as FILE:LINE: field: reason and \
                nothing is recorded.

                Example line:
                  {"date":"2026-11-20T09:31:00Z","kind":"dismiss","app":"com.example.mail"}

                Example:
                  proactive feedback import --user me feedback.jsonl
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Whose feedback.")
        var user: String = Donation.defaultUser

        @Argument(help: "One feedback event per line.")
        var file: String

        func run() throws {
            var events: [FeedbackEvent] = []
            for (index, line) in try readTextFile(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                do { events.append(try FeedbackCodec.decode(String(line))) } catch {
                    var error = error
                    error.line = nil
                    throw CommandFailure(description: "\(file):\(index + 1): \(error)")
                }
            }
            try FeedbackCommand.record(events, user: user, offset: 0, engine: storeOptions.openEngine())
        }
    }

    // MARK: list

    struct ListSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print a user's feedback as JSON lines, oldest first.",
            discussion: "Example:\n  proactive feedback list --user me")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Whose feedback.")
        var user: String = Donation.defaultUser

        func run() throws {
            for event in try storeOptions.openEngine(.mustExist).storedFeedbackJSON(user: user) { print(event) }
        }
    }

    /// Stores events, and every tap's donation, printing each. A tap's
    /// donation already stored (the same feedback recorded again) is not stored twice.
    /// While recording is paused nothing is stored (feedback is refused like donations).
    static func record(_ events: [FeedbackEvent], user: String, offset: Int, engine: Engine) throws {
        try RecordingPolicy.requireRecording(engine)
        for recorded in try engine.recordFeedback(events, user: user, utcOffset: offset) {
            print(FeedbackCodec.encode(recorded.event, utcOffset: offset))
            if let donation = recorded.donation {
                print((recorded.donationStored ? "donated " : "already stored ") + DonationLineCodec.encode(donation))
            }
        }
    }
}
