import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking

// MARK: - The Smart Stack at one moment

extension RankingSession {
    /// The Smart Stack's decision at a moment: which widget is on top and why,
    /// what is inserted, every candidate's score.
    ///
    /// - Parameters:
    ///   - widgets: the stack, top first, by name (see `resolveWidget`).
    ///   - state: what the previous decision left (rotation, insertions); updated.
    /// - Returns: the decision; a named widget that nothing configures any more (its donations
    ///   were deleted) is left out and explained in `skipped` (see `stackWidgets`).
    /// - Throws: `EngineError.invalidRequest` for a widget name nobody declared or defined, or a name given twice.
    public func stackDecision(widgets names: [String], at date: Date, utcOffset: Int? = nil, context: [String: String] = [:],
                              settings: StackSettings = StackSettings(), state: inout StackState) throws -> StackDecision {
        let moment = try engine.moment(for: live, at: date, utcOffset: utcOffset, context: context)
        let offset = moment.utcOffset ?? 0
        let ranker = ranker(dayStart: dayStart(containing: date, utcOffset: offset), utcOffset: offset, context: moment.context)
        let (widgets, skipped) = try stackWidgets(names, in: widgetCatalogue(ranker), ranker: ranker)
        var decision = SmartStackEngine(ranker: ranker).step(SmartStack(widgets: widgets, settings: settings),
                                                             distribution: ActiveNowModel.distribution(of: live.model, at: moment), moment: moment,
                                                             state: &state)
        decision.skipped = skipped
        return decision
    }
}

extension Engine {
    /// The Smart Stack's decision for a user's stack at a moment, from a fresh state
    /// (no earlier rotation or insertion; see `RankingSession.stackDecision` to carry one).
    public func stackDecision(user: String, widgets: [String], at date: Date, utcOffset: Int? = nil, context: [String: String] = [:],
                              settings: StackSettings = StackSettings(), model choice: ModelChoice = ModelChoice(),
                              now: Date = Date()) throws -> StackDecision {
        var state = StackState()
        return try rankingSession(user: user, choice, now: now)
            .stackDecision(widgets: widgets, at: date, utcOffset: utcOffset, context: context, settings: settings, state: &state)
    }
}

// MARK: - Answers a front end prints or encodes

/// The Smart Stack's decision at a moment for a fresh stack, with each reason written out: what
/// `POST /v1/stack` answers (`RankingSession.stackMoment`).
public struct StackMoment: Sendable, Hashable {
    /// One widget the decision scored.
    public struct Candidate: Sendable, Hashable {
        public var widget: String
        public var app: String
        public var score: Double
        public var inStack: Bool
        public var why: [String]
    }

    public var user: String
    /// The moment asked about, and the offset of the user's clock then.
    public var date: Date
    public var utcOffset: Int
    /// The widget on top (its display name) and its app.
    public var top: String
    public var app: String
    /// Why it is on top (`StackDecision.Reason`'s raw value: `rotated`, `inserted`, `resting`).
    public var reason: String
    public var score: Double
    public var why: [String]
    /// Widgets inserted by Widget Suggestions (display names).
    public var inserted: [String]
    /// Named widgets left out, and why (nothing configures them any more).
    public var skipped: [String]
    public var candidates: [Candidate]
}

/// A Smart Stack played through a local day, minute by minute (`RankingSession.stackDay`): what
/// `proactive stack` prints, encodes as JSON and draws.
public struct StackDay {
    public var simulation: StackSimulation
    /// The stack as resolved (widgets, settings).
    public var stack: SmartStack
    /// The rules that applied (the floors lifted in developer mode).
    public var configuration: FusionConfiguration
    /// The day's start and end on the user's clock (23, 24 or 25 hours apart across DST).
    public var start: Date
    public var end: Date
    /// The user's clock's offset at an instant: the zone's, else the offset of the user's latest donation before the day.
    public var offsetAt: @Sendable (Date) -> Int
    /// Notes about named widgets left out (nothing configures them any more).
    public var skipped: [String]
}

extension RankingSession {
    /// The Smart Stack's decision at a moment for a fresh stack (no rotation carried from earlier
    /// calls), with the reasons written on the user's clock at each time they name.
    ///
    /// ```swift
    /// let answer = try session.stackMoment(widgets: ["weather", "reminders"], at: Date(), context: [:], settings: StackSettings())
    /// print(answer.top, answer.why)
    /// ```
    /// - Parameters:
    ///   - widgets: the stack, top first, by name (see `resolveWidget`).
    ///   - utcOffset: the clock's offset when the user has no zone (nil: the user's latest donation's).
    ///   - context: the context given (the ranker reads it as given; the moment fills the Focus).
    /// - Throws: `EngineError.invalidRequest` for a widget name nobody declared or defined, or a name given twice.
    public func stackMoment(widgets names: [String], at date: Date, utcOffset: Int? = nil, context: [String: String] = [:],
                            settings: StackSettings = StackSettings()) throws -> StackMoment {
        let moment = try engine.moment(for: live, at: date, utcOffset: utcOffset, context: context)
        let offset = moment.utcOffset ?? 0
        let ranker = ranker(dayStart: dayStart(containing: date, utcOffset: offset), utcOffset: offset, context: context)
        let (widgets, skipped) = try stackWidgets(names, in: widgetCatalogue(ranker), ranker: ranker)
        var state = StackState()
        let decision = SmartStackEngine(ranker: ranker).step(SmartStack(widgets: widgets, settings: settings),
                                                             distribution: ActiveNowModel.distribution(of: live.model, at: moment),
                                                             moment: moment, state: &state)
        // Times in reasons on the user's clock at each (a zone's offset changes at DST), else the moment's offset.
        let why = { (signals: RelevanceSignals) in signals.reasons(ranker.configuration, utcOffsetAt: { self.offset(at: $0, fallback: offset) }) }
        return StackMoment(
            user: live.user, date: date, utcOffset: offset, top: decision.top.displayName, app: decision.top.app,
            reason: decision.reason.rawValue, score: decision.topScore, why: why(decision.topSignals),
            inserted: decision.inserted.map(\.widget.displayName), skipped: skipped,
            candidates: decision.candidates.map { candidate in
                StackMoment.Candidate(widget: candidate.widget.displayName, app: candidate.widget.app, score: candidate.score,
                                      inStack: candidate.inStack, why: why(candidate.signals))
            })
    }

    /// The stack played through the user's local day `days` (days since 1970-01-01), one step a minute, with
    /// the apps' declarations, the user's feedback and the Focus on at each minute joining `context`.
    ///
    /// ```swift
    /// let day = try session.stackDay(widgets: ["weather", "reminders"], day: CalendarDay(2026, 11, 20).days, context: [:],
    ///                                settings: StackSettings())
    /// for span in day.simulation.spans { print(span.top.displayName, span.reason) }
    /// ```
    /// - Throws: `EngineError.invalidRequest` for a widget name nobody declared or defined, or a name given twice;
    ///   store failures.
    public func stackDay(widgets names: [String], day days: Int, context: [String: String], settings: StackSettings) throws -> StackDay {
        // The calendar day in the user's zone: 23, 24 or 25 hours across DST.
        let localMidnight = LocalClock.startOfDay
        // Without a zone, the clock is the offset of the user's latest donation before the day.
        let fallback = try engine.moment(for: live, at: localMidnight(days, { _ in 0 })).utcOffset ?? 0
        let session = self
        let offsetAt: @Sendable (Date) -> Int = { date in session.offset(at: date, fallback: fallback) }
        let start = localMidnight(days, offsetAt)
        let end = localMidnight(days + 1, offsetAt)
        let ranker = ranker(dayStart: start, utcOffset: offsetAt(start), context: context)
        let resolved = try stackWidgets(names, in: widgetCatalogue(ranker), ranker: ranker)
        let stack = SmartStack(widgets: resolved.widgets, settings: settings)
        // The Focus on at each minute (schedules and manual changes) joins the context.
        let timeline = self.timeline
        // The clock's offset at each step: a zone's changes within the day at DST.
        let zone = self.zone
        let simulation = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffsetAt: { zone?.secondsFromGMT(for: $0) ?? fallback },
                                       contextAt: { timeline.enrich(context: context, at: $0) }, history: try history(from: start, to: end))
        let result = simulation.run(stack, model: ActiveNowModel(model), from: start, to: end)
        return StackDay(simulation: result, stack: stack,
                        configuration: settings.developerMode ? ranker.configuration.liftingLimits : ranker.configuration,
                        start: start, end: end, offsetAt: offsetAt, skipped: resolved.skipped)
    }
}
