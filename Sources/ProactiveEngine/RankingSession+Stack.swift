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
                                                             distribution: ActiveNowModel(live.model).distribution(at: moment), moment: moment,
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
