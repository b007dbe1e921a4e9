import ArgumentParser
import Foundation
import ProactiveCharts
import ProactiveCore
import ProactiveEngine

// MARK: - proactive stack

struct StackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stack",
        abstract: "Play a Smart Stack through a day: what is on top, what is inserted and removed, and why.",
        discussion: """
            Reads the user's live model (see `predict`); the day is then stepped minute by \
            minute with the apps' declarations (shortcuts set, timeline set) and the user's feedback, and \
            printed as spans. Widgets are named by full key, widget kind, the kind's last component or the \
            app's last component (`weather` for com.example.weather); among several configurations the one \
            the user donated most is used. Under a span of an hour or more that no declaration drives, \
            "model's choice" lines say which widget of the stack the model scores best, and how high; a \
            "hysteresis" line says why a widget stays on top below its floor; the rules follow the spans. \
            --svg draws the day as SVG (any browser shows it): one row per \
            widget with its score through the day as a line and the floor that applies to it, a band where it \
            is on top (blue: Smart Rotate turned to it, orange: inserted, grey: resting) and the reason on \
            hover. --png converts that SVG with rsvg-convert (Debian: librsvg2-bin) when it is installed.

            Example:
              proactive stack --user me --widgets weather,reminders --day 2026-11-20 \\
                  --svg day.svg
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Whose model, history and declarations.")
    var user: String = Donation.defaultUser

    @Option(name: .customLong("context"), parsing: .singleValue,
            help: ArgumentHelp("Context through the day, such as focus=work (repeatable; the Focus timeline fills focus).", valueName: "key=value"))
    var contextValues: [String] = []

    @OptionGroup var model: ModelChoiceOptions

    @Flag(help: "Developer mode: lift the confidence floors and rate limits, list every candidate with its score.")
    var developer = false

    @Option(help: ArgumentHelp("The stack's widgets, top first, comma-separated.", valueName: "names"))
    var widgets: String

    @Option(help: ArgumentHelp("The local day to play (YYYY-MM-DD).", valueName: "day"))
    var day: String

    @Flag(name: .customLong("no-rotate"), help: "Turn Smart Rotate off for this stack.")
    var noRotate = false

    @Flag(name: .customLong("no-suggestions"), help: "Turn Widget Suggestions off for this stack.")
    var noSuggestions = false

    @OptionGroup var chart: ChartOptions

    @Flag(help: "Print the day as JSON: the spans (start, end, top widget, reason, score, why, also inserted) and the events.")
    var json = false

    func validate() throws {
        _ = try Self.parseDay(day)
        if widgets.split(separator: ",").isEmpty { throw ValidationError("--widgets needs at least one widget name") }
        _ = try MomentOptions.parseContext(contextValues)
        if json, chart.svgToStandardOutput { throw ValidationError("--json and --svg - both want standard output; give --svg a file") }
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
        let engine = try model.engine(storeOptions)
        let session: RankingSession
        do { session = try engine.rankingSession(user: user, model.choice) } catch let error as EngineError where error.code == .noDonations {
            throw CommandFailure(description: "\(storeOptions.displayName): \(error.description)")
        }
        for note in session.live.notes { printError("note: \(note)") }
        let names = widgets.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let played: StackDay
        do {
            played = try session.stackDay(widgets: names, day: days, context: try MomentOptions.parseContext(contextValues),
                                          settings: StackSettings(smartRotate: !noRotate, widgetSuggestions: !noSuggestions, developerMode: developer))
        } catch let error as EngineError where error.code == .invalidRequest {
            throw ValidationError("--widgets: \(error)" + (error.description.hasPrefix("no widget named")
                ? "\n(`proactive definitions add FILE` stores the apps' widget kinds; --definitions FILE uses a file for this command)" : ""))
        }
        for note in played.skipped { printError("note: \(note)") }
        let (result, stack, configuration, offsetAt) = (played.simulation, played.stack, played.configuration, played.offsetAt)
        if json {
            print(JSONWriter.string(jsonReport(result, stack: stack, session: session, offsetAt: offsetAt)))
        } else {
            let text = report(result, stack: stack, session: session, configuration: configuration, offsetAt: offsetAt)
            // With the SVG on standard output, the text goes with the other messages.
            if chart.svgToStandardOutput { printError(text) } else { print(text) }
        }
        try chart.write {
            StackDayChart(user: session.user, day: day, zone: zoneName(session, offset: offsetAt(played.start)), model: session.model.name,
                          stackSize: stack.widgets.count, configuration: configuration, settings: stack.settings)
                .svg(result, utcOffsetAt: offsetAt)
        }
    }

    /// The zone's identifier, or the offset when the user has none (`UTC-8`).
    func zoneName(_ session: RankingSession, offset: Int) -> String {
        session.zone?.identifier ?? "UTC\(offset >= 0 ? "+" : "")\(RelevanceSignals.number(Double(offset) / 3600))"
    }

    // MARK: Output

    /// The day as JSON; times are ISO 8601 on the user's clock.
    func jsonReport(_ result: StackSimulation, stack: SmartStack, session: RankingSession, offsetAt: (Date) -> Int) -> JSONValue {
        func time(_ date: Date) -> JSONValue {
            .string(Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: offsetAt(date)))
        }
        return .object([
            ("user", .string(session.user)), ("day", .string(day)), ("zone", session.zone.map { .string($0.identifier) } ?? .null),
            ("model", .string(session.model.name)), ("widgets", .array(stack.widgets.map { .string($0.key) })),
            ("smartRotate", .bool(stack.settings.smartRotate)), ("widgetSuggestions", .bool(stack.settings.widgetSuggestions)),
            ("spans", .array(result.spans.map { span in
                .object([("start", time(span.start)), ("end", time(span.end)), ("top", .string(span.top.key)),
                         ("reason", .string(span.reason.rawValue)), ("score", .number(span.score, integer: nil)), ("why", .array(span.why.map(JSONValue.string))),
                         ("alsoInserted", .array(span.inserted.filter { $0 != span.top }.map { .string($0.key) }))])
            })),
            ("events", .array(result.events.map { event in
                let change: [(String, JSONValue)]
                switch event.change {
                case let .rotated(from, to): change = [("change", .string("rotated")), ("from", .string(from.key)), ("to", .string(to.key))]
                case let .inserted(widget): change = [("change", .string("inserted")), ("widget", .string(widget.key))]
                case let .removed(widget): change = [("change", .string("removed")), ("widget", .string(widget.key))]
                }
                return .object([("at", time(event.date))] + change + [("why", .array(event.why.map(JSONValue.string)))])
            })),
        ])
    }

    func report(_ result: StackSimulation, stack: SmartStack, session: RankingSession, configuration: FusionConfiguration,
                offsetAt: (Date) -> Int) -> String {
        let dayStart = result.steps.first ?? Date()
        let dayEnd = result.steps.last.map { $0.addingTimeInterval(result.stepLength) } ?? dayStart
        var lines: [String] = []
        lines.append("Stack \(stack.widgets.map(\.displayName).joined(separator: ", ")) on \(day) (\(zoneName(session, offset: offsetAt(dayStart)))), "
                     + "model \(session.model.name)"
                     + (stack.settings.smartRotate ? "" : ", Smart Rotate off") + (stack.settings.widgetSuggestions ? "" : ", Widget Suggestions off")
                     + (stack.settings.developerMode ? ", developer mode" : ""))
        /// `HH:MM`, with the day's end as 24:00.
        func clock(_ date: Date) -> String { date >= dayEnd ? "24:00" : RelevanceSignals.clock(date, offsetAt(date)) }
        let width = result.spans.map(\.top.displayName.count).max() ?? 0
        var heldByHysteresis = false
        for span in result.spans {
            let time = "\(clock(span.start))-\(clock(span.end))"
            let name = span.top.displayName.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = "\(time)  \(name)  \(span.reason.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  "
            line += span.reason == .resting ? span.text : "\(String(format: "%.2f", span.score))  \(span.text)"
            let others = span.inserted.filter { $0 != span.top }
            if !others.isEmpty { line += "  [also inserted: \(others.map(\.displayName).joined(separator: ", "))]" }
            lines.append(line)
            if let note = hysteresisNote(span, result, configuration: configuration, clock: clock) {
                lines.append("             " + note)
                heldByHysteresis = true
            }
            if span.signal == nil || span.signal == .model {
                lines += modelChoices(in: span, result, stackSize: stack.widgets.count, clock: clock).map { "             " + $0 }
            }
            if stack.settings.developerMode, let step = result.steps.firstIndex(of: span.start) {
                for (row, widget) in result.rows.enumerated() where result.scores[row][step] > 0 || stack.contains(widget) {
                    lines.append("               \(widget.displayName): \(String(format: "%.3f", result.scores[row][step]))")
                }
            }
        }
        if !stack.settings.developerMode {
            let stickiness = 1 + configuration.hysteresis
            let percent = "\(Int((configuration.hysteresis * 100).rounded()))%"
            lines.append("")
            lines.append("Rules: Smart Rotate turns to a widget of the stack whose score reaches \(Self.fixed(configuration.rotationFloor)); "
                         + "Widget Suggestions insert another widget whose score reaches \(Self.fixed(configuration.insertionFloor)).")
            lines.append("Hysteresis (\(percent)): the widget on top competes with its score × \(Self.fixed(stickiness)), so it stays on top "
                         + "while that reaches the floor (down to \(Self.fixed(configuration.rotationFloor / stickiness)) rotated, "
                         + "\(Self.fixed(configuration.insertionFloor / stickiness)) inserted) and a challenger must beat it by \(percent);"
                         + (heldByHysteresis ? " the spans marked \"hysteresis\" above stay on top this way;" : ""))
            lines.append("a rotation holds at least \(Int(configuration.minimumDwell / 60)) min unless its widget stops being relevant.")
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
                lines.append("\(RelevanceSignals.clock(event.date, offsetAt(event.date)))  \(what): \(event.text)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Why a widget stays on top below its floor, if it does during `span`: hysteresis, with the rule and the numbers.
    func hysteresisNote(_ span: StackSpan, _ result: StackSimulation, configuration: FusionConfiguration,
                        clock: (Date) -> String) -> String? {
        guard span.reason != .resting, let row = result.rows.firstIndex(of: span.top),
              let first = result.steps.firstIndex(where: { $0 >= span.start }) else { return nil }
        let floor = span.reason == .rotated ? configuration.rotationFloor : configuration.insertionFloor
        var below: Int?
        var lowest = Double.infinity
        var step = first
        while step < result.steps.count, result.steps[step] < span.end {
            let score = result.scores[row][step]
            if score < floor {
                if below == nil { below = step }
                lowest = min(lowest, score)
            }
            step += 1
        }
        guard let below else { return nil }
        let stickiness = 1 + configuration.hysteresis
        let what = span.reason == .rotated ? "rotation" : "insertion"
        return "hysteresis: \(span.top.displayName) is below the \(Self.fixed(floor)) \(what) floor from \(clock(result.steps[below])) "
            + "(lowest \(Self.fixed(lowest))) and stays on top because the widget on top keeps its place while its score × "
            + "\(Self.fixed(stickiness)) reaches \(Self.fixed(floor)) (\(Self.fixed(lowest)) × \(Self.fixed(stickiness)) = "
            + "\(Self.fixed(lowest * stickiness)))"
    }

    /// The model's own choices during a span that no declaration drives (resting, or
    /// on top by the model's prediction): the stretches where one widget of the stack
    /// scores best, each with its score range and when it peaks. Stretches under
    /// `minimumMinutes` join the one before. Empty when the span is short, or one
    /// widget leads throughout at a near-constant score.
    func modelChoices(in span: StackSpan, _ result: StackSimulation, stackSize: Int, clock: (Date) -> String,
                      minimumMinutes: Double = 10) -> [String] {
        guard span.end.timeIntervalSince(span.start) >= 3600, let first = result.steps.firstIndex(where: { $0 >= span.start }) else { return [] }
        var stretches: [(row: Int, start: Int, end: Int)] = []
        var step = first
        while step < result.steps.count, result.steps[step] < span.end {
            var best = 0
            for row in 1..<min(stackSize, result.rows.count) where result.scores[row][step] > result.scores[best][step] { best = row }
            if let last = stretches.last, last.row == best {
                stretches[stretches.count - 1].end = step + 1
            } else if let last = stretches.last, Double(last.end - last.start) * result.stepLength < minimumMinutes * 60 {
                // Too short to read as a choice: it joins the stretch before, or takes over the one at the span's start.
                if stretches.count > 1, stretches[stretches.count - 2].row == best {
                    stretches.removeLast()
                    stretches[stretches.count - 1].end = step + 1
                } else {
                    stretches[stretches.count - 1] = (best, last.start, step + 1)
                }
            } else {
                stretches.append((best, step, step + 1))
            }
            step += 1
        }
        let described = stretches.map { stretch -> (text: String, spread: Double) in
            let scores = result.scores[stretch.row][stretch.start..<stretch.end]
            let low = scores.min() ?? 0, high = scores.max() ?? 0
            let peak = scores.firstIndex(of: high) ?? stretch.start
            let end = stretch.end < result.steps.count ? result.steps[stretch.end] : span.end
            let range = Self.fixed(low) == Self.fixed(high) ? Self.fixed(low) : "\(Self.fixed(low))-\(Self.fixed(high)), highest at \(clock(result.steps[peak]))"
            return ("model's choice \(clock(result.steps[stretch.start]))-\(clock(end))  \(result.rows[stretch.row].displayName)  score \(range)",
                    high - low)
        }
        guard described.count > 1 || (described.first?.spread ?? 0) >= 0.05 else { return [] }
        return described.map(\.text)
    }

    /// `value` to two decimals.
    static func fixed(_ value: Double) -> String { String(format: "%.2f", value) }
}
