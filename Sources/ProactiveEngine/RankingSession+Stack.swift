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
    /// - Throws: `EngineError.invalidRequest` for a widget name nobody declared, or a name given twice.
    public func stackDecision(widgets names: [String], at date: Date, utcOffset: Int? = nil, context: [String: String] = [:],
                              settings: StackSettings = StackSettings(), state: inout StackState) throws -> StackDecision {
        let moment = try engine.moment(for: live, at: date, utcOffset: utcOffset, context: context)
        let offset = moment.utcOffset ?? 0
        let ranker = ranker(dayStart: dayStart(containing: date, utcOffset: offset), utcOffset: offset, context: moment.context)
        let catalogue = widgetCatalogue(ranker)
        var widgets: [WidgetID] = []
        for name in names {
            let widget = try resolveWidget(name, in: catalogue, ranker: ranker)
            guard !widgets.contains(widget) else { throw EngineError(.invalidRequest, "the stack names \(widget.displayName) twice") }
            widgets.append(widget)
        }
        guard !widgets.isEmpty else { throw EngineError(.invalidRequest, "a stack needs at least one widget") }
        return SmartStackEngine(ranker: ranker).step(SmartStack(widgets: widgets, settings: settings),
                                                     distribution: ActiveNowModel(live.model).distribution(at: moment), moment: moment,
                                                     state: &state)
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
