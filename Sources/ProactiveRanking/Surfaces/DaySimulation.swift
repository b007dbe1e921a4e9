import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Results

/// A stretch of time during which the stack showed the same thing for the same reason.
package struct StackSpan: Sendable, Hashable {
    package var start: Date
    /// Exclusive.
    package var end: Date
    package var top: WidgetID
    package var reason: TopReason
    /// Every inserted widget during the span (the top one included), in insertion order.
    package var inserted: [WidgetID]
    /// The signal that keeps the top widget there (nil when resting): a new span
    /// starts when it changes, so a timeline taking over from the model shows.
    package var signal: SignalKind?
    /// The top widget's score and reason at the span's start.
    package var score: Double
    /// Why the widget is on top, one phrase a reason, strongest first (as a suggestion's `why`):
    /// `["timeline 1 (100% of its best) since 18:00 until 20:00", "predicted 3% now"]`.
    package var why: [String]

    /// `why` as one line for a person: the phrases joined with "; ".
    package var text: String { why.joined(separator: "; ") }
}

/// A change at one instant (rotation, insertion, removal) with its reason.
package struct StackEvent: Sendable, Hashable {
    package var date: Date
    package var change: StackChange
    /// Why, one phrase a reason: for a widget rotated to or inserted, its score first, then its
    /// reasons strongest first (`["score 0.9", "window 09:30–10:30", "until 10:30"]`); for a removal,
    /// `["relevance ended (score 0.1)"]`, the Focus filter's phrase, or `["no longer declared"]`.
    package var why: [String]

    /// `why` as one line for a person: `score 0.9: window 09:30–10:30; until 10:30`.
    package var text: String {
        switch change {
        case .rotated, .inserted:
            guard let score = why.first else { return "" }
            return why.count == 1 ? score : score + ": " + why.dropFirst().joined(separator: "; ")
        case .removed:
            return why.joined(separator: "; ")
        }
    }
}

/// A simulated stretch of time: spans, events, and per-step rows for charts.
public struct StackSimulation: Sendable {
    package var spans: [StackSpan]
    package var events: [StackEvent]
    /// The chart's rows: the stack's widgets, then every widget that was inserted.
    public var rows: [WidgetID]
    /// The instant of each step.
    public var steps: [Date]
    /// `scores[row][step]`: the row's fused score at each step (0 when not a candidate).
    public var scores: [[Double]]
    /// `topRow[step]`: the row on top at each step, and why it is there.
    public var topRow: [Int]
    package var topReason: [TopReason]
    /// Seconds between steps.
    public var stepLength: TimeInterval
    /// `insertedRows[row][step]`: true while the row's widget is inserted in the stack.
    public var insertedRows: [[Bool]]
}

// MARK: - Simulation

/// Steps a stack through time (minute by minute by default) and collapses the
/// decisions into spans: what is on top, what is inserted and removed, and why.
///
/// ```swift
/// let day = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffset: -8 * 3600)
/// let result = day.run(stack, from: midnight, to: midnight + 86_400) { model.scores(at: $0) }
/// for span in result.spans { print(span.start, span.top, span.text) }
/// ```
package struct DaySimulation: Sendable {
    package var engine: SmartStackEngine
    /// The offset of the user's clock at each instant (for moments and the
    /// times in reasons): a zone's offset changes within a day at DST.
    package var utcOffsetAt: @Sendable (Date) -> Int?
    /// The context of the moment at each instant (`focus` changes through a day).
    package var contextAt: @Sendable (Date) -> [String: String]
    /// The user's past events, sorted by date: each moment gets the last `recentCount` before it.
    package var history: [Event]
    package var recentCount: Int
    package var step: TimeInterval

    /// A simulation whose moments all carry `context`.
    package init(engine: SmartStackEngine, utcOffset: Int?, context: [String: String] = [:], history: [Event] = [], recentCount: Int = 8,
                step: TimeInterval = 60) {
        self.init(engine: engine, utcOffset: utcOffset, contextAt: { _ in context }, history: history, recentCount: recentCount, step: step)
    }

    /// A simulation whose moment at `t` carries `contextAt(t)` (a Focus timeline, say).
    package init(engine: SmartStackEngine, utcOffset: Int?, contextAt: @escaping @Sendable (Date) -> [String: String], history: [Event] = [],
                recentCount: Int = 8, step: TimeInterval = 60) {
        self.init(engine: engine, utcOffsetAt: { _ in utcOffset }, contextAt: contextAt, history: history, recentCount: recentCount, step: step)
    }

    /// A simulation on a clock whose offset at `t` is `utcOffsetAt(t)` (a time zone through a DST change).
    package init(engine: SmartStackEngine, utcOffsetAt: @escaping @Sendable (Date) -> Int?, contextAt: @escaping @Sendable (Date) -> [String: String],
                history: [Event] = [], recentCount: Int = 8, step: TimeInterval = 60) {
        precondition(step > 0, "a simulation step is positive")
        self.engine = engine
        self.utcOffsetAt = utcOffsetAt
        self.contextAt = contextAt
        self.history = history
        self.recentCount = recentCount
        self.step = step
    }

    /// Runs a fitted model through `[start, end)`, scoring the steps in batches
    /// (`FittedModel.scores(at: [Moment])`, one matrix product for models that batch).
    package func run<Model: FittedModel>(_ stack: SmartStack, model: Model, from start: Date, to end: Date, state: StackState = StackState()) -> StackSimulation {
        var batch: [[ScoredTarget]] = []
        var batchStart = 0
        var index = 0
        return run(stack, from: start, to: end, state: state) { moment in
            if index - batchStart >= batch.count {
                batchStart = index
                var moments: [Moment] = []
                var t = moment.date
                while moments.count < Self.batchSize && t < end {
                    moments.append(Moment(date: t, utcOffset: utcOffsetAt(t), context: contextAt(t), recent: recent(before: t)))
                    t = t.addingTimeInterval(step)
                }
                batch = model.scores(at: moments)
            }
            defer { index += 1 }
            return batch[index - batchStart]
        }
    }

    /// Steps scored per batch: large enough for a matrix product, small enough
    /// that `batchSize x targets` scores stay modest in memory.
    static let batchSize = 64

    /// Runs `[start, end)`, asking `scores` for the model's scores at each step.
    package func run(_ stack: SmartStack, from start: Date, to end: Date, state initial: StackState = StackState(),
                    scores: (Moment) -> [ScoredTarget]) -> StackSimulation {
        var state = initial
        var spans: [StackSpan] = []
        var events: [StackEvent] = []
        var rows = stack.widgets
        var rowIndex: [WidgetID: Int] = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1, $0) })
        var scoreRows: [[Double]] = rows.map { _ in [] }
        var steps: [Date] = []
        var topRow: [Int] = []
        var topReason: [TopReason] = []
        var insertedRows: [[Bool]] = rows.map { _ in [] }
        let configuration = stack.settings.developerMode ? engine.ranker.configuration.liftingLimits : engine.ranker.configuration
        var t = start
        while t < end {
            let moment = Moment(date: t, utcOffset: utcOffsetAt(t), context: contextAt(t), recent: recent(before: t))
            // Each time in a reason on the clock in force at that time (an `until` may fall after a DST change).
            let offset = moment.utcOffset ?? 0
            let clock = { (date: Date) in utcOffsetAt(date) ?? offset }
            let decision = engine.step(stack, scores: scores(moment), moment: moment, state: &state)
            // Events.
            for change in decision.changes {
                events.append(StackEvent(date: t, change: change, why: reason(for: change, decision: decision, configuration: configuration, offsetAt: clock)))
            }
            // Chart rows.
            let inserted = decision.inserted.map(\.widget)
            let signal = decision.reason == .resting ? nil : decision.topSignals.strongest(configuration)
            for widget in inserted where rowIndex[widget] == nil {
                rowIndex[widget] = rows.count
                rows.append(widget)
                scoreRows.append(Array(repeating: 0, count: steps.count))
                insertedRows.append(Array(repeating: false, count: steps.count))
            }
            var column = Array(repeating: 0.0, count: rows.count)
            for candidate in decision.candidates {
                if let row = rowIndex[candidate.widget] { column[row] = candidate.score }
            }
            for row in rows.indices {
                scoreRows[row].append(column[row])
                insertedRows[row].append(inserted.contains(rows[row]))
            }
            steps.append(t)
            topRow.append(rowIndex[decision.top]!)
            topReason.append(decision.reason)
            // Spans.
            let next = t.addingTimeInterval(step)
            let spanEnd = min(next, end)
            if var last = spans.last, last.top == decision.top, last.reason == decision.reason, last.inserted == inserted, last.signal == signal,
               decision.changes.isEmpty {
                last.end = spanEnd
                spans[spans.count - 1] = last
            } else {
                let why = decision.reason == .resting
                    ? ["nothing relevant enough: stays where it was"]
                    : decision.topSignals.reasons(configuration, utcOffsetAt: clock)
                spans.append(StackSpan(start: t, end: spanEnd, top: decision.top, reason: decision.reason, inserted: inserted,
                                       signal: signal, score: decision.topScore, why: why))
            }
            t = next
        }
        return StackSimulation(spans: spans, events: events, rows: rows, steps: steps, scores: scoreRows, topRow: topRow,
                               topReason: topReason, stepLength: step, insertedRows: insertedRows)
    }

    // MARK: Pieces

    private func reason(for change: StackChange, decision: StackDecision, configuration: FusionConfiguration, offsetAt: (Date) -> Int) -> [String] {
        switch change {
        case let .rotated(_, to), let .inserted(to):
            guard let candidate = decision.candidates.first(where: { $0.widget == to }) else { return [] }
            var why = ["score \(RelevanceSignals.number(candidate.score))"] + candidate.signals.reasons(configuration, utcOffsetAt: offsetAt)
            if case .inserted = change, let end = candidate.signals.declaredEnd { why.append("until \(RelevanceSignals.clock(end, offsetAt(end)))") }
            return why
        case let .removed(widget):
            guard let candidate = decision.candidates.first(where: { $0.widget == widget && !$0.inStack }) else {
                return ["no longer declared"]
            }
            if candidate.signals.block != nil { return candidate.signals.reasons(configuration, utcOffsetAt: offsetAt) }
            return ["relevance ended (score \(RelevanceSignals.number(candidate.score)))"]
        }
    }

    /// The last `recentCount` history events strictly before `t`.
    private func recent(before t: Date) -> [Event] {
        guard recentCount > 0, !history.isEmpty else { return [] }
        var low = 0
        var high = history.count
        while low < high {
            let middle = (low + high) / 2
            if history[middle].date < t { low = middle + 1 } else { high = middle }
        }
        return Array(history[max(0, low - recentCount)..<low])
    }
}
