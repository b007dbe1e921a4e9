import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking

// MARK: - proactive suggest

struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Suggest the intents a user most likely wants now (or at --at), with why.",
        discussion: """
            Learns the user's model from their donations before the moment, then fuses its probabilities \
            with the apps' relevant shortcuts, the user's feedback and the Focus context (docs/RANKING.md). \
            Nothing is printed when no intent clears the confidence floor (exit status 0); --developer \
            lifts the floor and lists every candidate.

            Example:
              proactive suggest --user me --at 2026-11-20T07:00:00-08:00 -k 4 --context focus=personal \\
                  --definitions datasets/sample/definitions.json
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var options: RankingOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The moment: \(DateArgument.help). Default: now.", valueName: "date"), transform: DateArgument.transform)
    var at: DateArgument?

    @Option(name: .short, parsing: .unconditional, help: "How many suggestions at most.")
    var k: Int = 4

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func validate() throws {
        guard k >= 1 else { throw ValidationError("-k must be at least 1, found \(k)") }
    }

    func run() throws {
        let date = at?.date ?? Date()
        let session = try RankingSession.load(store: storeOptions, options: options, before: date)
        let context = session.focus.timeline.enrich(context: try options.context(), at: date)
        let moment = Moment(date: date, utcOffset: session.zone == nil ? (at?.utcOffset ?? session.fallbackOffset) : session.offset(at: date),
                            context: context, recent: session.recent(before: date))
        let ranker = session.ranker(dayStart: session.dayStart(containing: date), context: context)
        var suggestions = SuggestionRanker(ranker: ranker)
        let distribution = session.model.distribution(at: moment)
        let list = suggestions.suggest(distribution, moment: moment, k: options.developer ? max(k, distribution.count + ranker.adjustedTargets.count) : k,
                                       developerMode: options.developer)
        if json {
            print(JSONWriter.string(.array(list.map(\.json))))
            return
        }
        guard !list.isEmpty else {
            printError("nothing relevant enough at \(Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: moment.utcOffset ?? 0)) (model \(session.model.name)); --developer lists every candidate")
            return
        }
        let width = min(48, list.map(\.summary.count).max() ?? 0)
        for (index, suggestion) in list.enumerated() {
            let summary = suggestion.summary.padding(toLength: max(width, suggestion.summary.count), withPad: " ", startingAt: 0)
            print("\(index + 1). \(summary)  \(String(format: "%.3f", suggestion.score))  \(suggestion.why)")
        }
    }
}
