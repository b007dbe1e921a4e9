import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking

// MARK: - proactive stack

struct StackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stack",
        abstract: "Play a Smart Stack through a day: what is on top, what is inserted and removed, and why.",
        discussion: """
            The model learns from the user's donations before the day; the day is then stepped minute by \
            minute with the apps' declarations (shortcuts set, timeline set) and the user's feedback, and \
            printed as spans. Widgets are named by full key, widget kind, the kind's last component or the \
            app's last component (`weather` for com.example.weather); among several configurations the one \
            the user donated most is used. --png draws the day: one row per widget, one column per minute \
            (blue: rotated to, orange: inserted, grey: resting; light bars: scores).

            Example:
              proactive stack --user me --widgets weather,reminders --day 2026-11-20 \\
                  --definitions datasets/sample/definitions.json --timezone America/Los_Angeles --png day.png
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var options: RankingOptions

    @Option(help: ArgumentHelp("The stack's widgets, top first, comma-separated.", valueName: "names"))
    var widgets: String

    @Option(help: ArgumentHelp("The local day to play (YYYY-MM-DD).", valueName: "day"))
    var day: String

    @Flag(name: .customLong("no-rotate"), help: "Turn Smart Rotate off for this stack.")
    var noRotate = false

    @Flag(name: .customLong("no-suggestions"), help: "Turn Widget Suggestions off for this stack.")
    var noSuggestions = false

    @Option(help: ArgumentHelp("Also draw the day as a PNG image.", valueName: "file"))
    var png: String?

    func validate() throws {
        _ = try Self.parseDay(day)
        if widgets.split(separator: ",").isEmpty { throw ValidationError("--widgets needs at least one widget name") }
    }

    /// (year, month, day) of a `YYYY-MM-DD` argument.
    static func parseDay(_ text: String) throws -> (Int, Int, Int) {
        do {
            let parsed = try Timestamp.parse(text + "T00:00:00Z")
            let (year, month, day) = Timestamp.civilFromDays(Int(parsed.secondsSince1970 / 86_400))
            guard text.count == 10 else { throw ValidationError("") }
            return (year, month, day)
        } catch {
            throw ValidationError("--day wants a calendar day such as 2026-11-20, found \"\(text)\"")
        }
    }

    func run() throws {
        let (year, month, dayOfMonth) = try Self.parseDay(day)
        let days = Timestamp.daysFromCivil(year: year, month: month, day: dayOfMonth)
        // The calendar day in the user's zone: 23, 24 or 25 hours across DST.
        let localMidnight = LocalClock.startOfDay
        var end = Date()
        let session = try RankingSession.load(store: storeOptions, options: options) { offsetAt in
            end = localMidnight(days + 1, offsetAt)
            return localMidnight(days, offsetAt)
        }
        let start = localMidnight(days, session.offset(at:))
        let context = try options.context()
        let ranker = session.ranker(dayStart: start, context: context)
        let catalogue = session.widgetCatalogue(ranker)
        var stackWidgets: [WidgetID] = []
        for name in widgets.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let widget = try session.resolveWidget(name, in: catalogue, ranker: ranker)
            guard !stackWidgets.contains(widget) else { throw ValidationError("--widgets names \(widget.displayName) twice") }
            stackWidgets.append(widget)
        }
        let stack = SmartStack(widgets: stackWidgets, settings: StackSettings(smartRotate: !noRotate, widgetSuggestions: !noSuggestions,
                                                                              developerMode: options.developer))
        // The Focus on at each minute (schedules and manual changes) joins the --context values.
        let timeline = session.focus.timeline
        let (zone, fallback) = (session.zone, session.fallbackOffset)
        let simulation = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffsetAt: { zone?.secondsFromGMT(for: $0) ?? fallback },
                                       contextAt: { timeline.enrich(context: context, at: $0) }, history: session.training.events)
        let result = simulation.run(stack, model: session.model, from: start, to: end)
        print(report(result, stack: stack, session: session, ranker: ranker))
        if let png {
            let canvas = DayChart().render(result, utcOffset: session.offset(at: start))
            do {
                try Data(canvas.png()).write(to: URL(fileURLWithPath: png))
            } catch {
                throw CommandFailure(description: "\(png): cannot be written (\(error.localizedDescription))")
            }
            printError("wrote \(png) (\(canvas.width)x\(canvas.height))")
        }
    }

    // MARK: Output

    func report(_ result: StackSimulation, stack: SmartStack, session: RankingSession, ranker: Ranker) -> String {
        var lines: [String] = []
        let zone = session.zone?.identifier ?? "UTC\(RelevanceSignals.number(Double(session.fallbackOffset) / 3600))"
        lines.append("Stack \(stack.widgets.map(\.displayName).joined(separator: ", ")) on \(day) (\(zone)), model \(session.model.name)"
                     + (stack.settings.smartRotate ? "" : ", Smart Rotate off") + (stack.settings.widgetSuggestions ? "" : ", Widget Suggestions off")
                     + (stack.settings.developerMode ? ", developer mode" : ""))
        let width = result.spans.map(\.top.displayName.count).max() ?? 0
        for span in result.spans {
            let time = "\(clockText(span.start, session))-\(clockText(span.end, session))"
            let name = span.top.displayName.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = "\(time)  \(name)  \(span.reason.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  "
            line += span.reason == .resting ? span.why : "\(String(format: "%.2f", span.score))  \(span.why)"
            let others = span.inserted.filter { $0 != span.top }
            if !others.isEmpty { line += "  [also inserted: \(others.map(\.displayName).joined(separator: ", "))]" }
            lines.append(line)
            if stack.settings.developerMode, let step = result.steps.firstIndex(of: span.start) {
                for (row, widget) in result.rows.enumerated() where result.scores[row][step] > 0 || stack.contains(widget) {
                    lines.append("               \(widget.displayName): \(String(format: "%.3f", result.scores[row][step]))")
                }
            }
        }
        if !result.events.isEmpty {
            lines.append("")
            lines.append("Events:")
            for event in result.events {
                let what: String
                switch event.change {
                case let .rotated(from, to): what = "rotated from \(from.displayName) to \(to.displayName)"
                case let .inserted(widget): what = "inserted \(widget.displayName)"
                case let .removed(widget): what = "removed \(widget.displayName)"
                }
                lines.append("\(clockText(event.date, session))  \(what): \(event.why)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
