import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive suggest

struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Suggest the intents a user most likely wants now (or at --at), with why.",
        discussion: """
            Reads the user's live model (the same one `predict` reads: see its help) and fuses its \
            probabilities with the apps' relevant shortcuts, the user's feedback and the Focus filters \
            (docs/RANKING.md). Nothing is printed when no intent clears the confidence floor (exit status 0); \
            --developer lifts the floor and lists every candidate.

            Example:
              proactive suggest --user me --at 2026-11-20T07:00:00-08:00 -k 4 \\\n      --context focus=personal \\
                  --definitions datasets/sample/definitions.json
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var moment: MomentOptions

    @Option(name: .short, parsing: .unconditional, help: "How many suggestions at most.")
    var k: Int = 4

    @Flag(help: "Developer mode: lift the confidence floors and rate limits, list every candidate with its score.")
    var developer = false

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Option(help: "Output: table, json, lines or dmenu (one summary a line, best first, nothing else), rofi (rows of a rofi script mode, each row's info the target key).")
    var format: SuggestFormat = .table

    func validate() throws {
        if let problem = Engine.Limits.kProblem(k) { throw ValidationError("-k \(problem), found \(k)") }
    }

    func run() throws {
        let engine = try moment.model.engine(storeOptions)
        let (date, offset, clock) = try moment.instant(engine)
        let result: SuggestionResult
        do {
            result = try engine.suggest(user: moment.user, at: date, utcOffset: offset, context: try moment.context(), k: k,
                                        developerMode: developer, model: moment.model.choice)
        } catch let error as EngineError where error.code == .noDonations {
            throw CommandFailure(description: "\(storeOptions.displayName): \(error.description)")
        }
        if json || format == .json {
            print(JSONWriter.string(.array(result.suggestions.map(\.json))))
            return
        }
        if format != .table {
            for suggestion in result.suggestions {
                let text = LauncherRofiCommand.clean(suggestion.summary)
                print(format == .rofi ? text + "\0info\u{1F}" + LauncherRofiCommand.clean(suggestion.target.rawValue) : text)
            }
            return
        }
        for note in result.notes { printError("note: \(note)") }
        printError(MomentOptions.clockLine(clock))
        if let focus = result.moment.context["focus"], try moment.context()["focus"] == nil {
            printError("focus: \(focus) (on at that moment by the Focus schedules or a manual change; --context focus=NAME overrides)")
        }
        printError("model: \(result.model); scores fuse its probability with relevant shortcuts, timelines, feedback and Focus filters"
                   + (result.activity < 1 ? "; the probability is x \(Output.fixed(result.activity, 2)), the user's activity level now (1 at their usual times)" : ""))
        let list = result.suggestions
        guard !list.isEmpty else {
            let when = Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: result.moment.utcOffset ?? 0)
            printError("nothing relevant enough at \(when) (model \(result.model)); --developer lists every candidate")
            return
        }
        let width = min(48, list.map(\.summary.count).max() ?? 0)
        for (index, suggestion) in list.enumerated() {
            print("\(index + 1). \(Output.padded(suggestion.summary, width))  \(Output.fixed(suggestion.score, 3))  \(suggestion.why.joined(separator: "; "))")
        }
    }
}

/// `suggest --format`.
enum SuggestFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, lines, dmenu, rofi
}
