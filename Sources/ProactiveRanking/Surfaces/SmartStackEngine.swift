import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Smart Rotate and Widget Suggestions

/// Decides what a Smart Stack shows at one instant: which widget of the stack
/// is on top (Smart Rotate) and which widget not in it is inserted on top
/// (Widget Suggestions), carrying `StackState` explicitly between steps.
///
/// Rules, in order, at time `t` (floors and limits from `FusionConfiguration`,
/// lifted in developer mode):
/// 1. An inserted widget stays while `score · (1 + hysteresis) >= insertionFloor`;
///    when its relevance ends it is removed and the stack shows what it showed
///    before the insertion (rotation is frozen while a suggestion is on top).
/// 2. With no insertion, the best widget *not* in the stack with
///    `score >= insertionFloor` is inserted, at most `maximumInsertionsPerDay`
///    per local day.
/// 3. Smart Rotate turns to the best widget *in* the stack (timeline relevance
///    counts here) when its effective score (the current widget's is multiplied
///    by `1 + hysteresis`) clears `rotationFloor` and beats the current one, and
///    the current one has been on top for `minimumDwell` or has stopped being
///    relevant. When nothing clears the floor the stack stays where it is.
public struct SmartStackEngine: Sendable {
    public var ranker: Ranker

    public init(ranker: Ranker) { self.ranker = ranker }

    /// One step at `moment`.
    /// - Parameters:
    ///   - scores: the model's scores at `moment` (any order).
    ///   - state: what the previous step left; returned updated.
    public func step(_ stack: SmartStack, scores: [ScoredTarget], moment: Moment, state: inout StackState) -> StackDecision {
        let settings = stack.settings
        let configuration = settings.developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        let stickiness = 1 + configuration.hysteresis
        let t = moment.date
        let day = ranker.clock.read(t, writtenOffset: moment.utcOffset).day
        if state.insertionDay != day {
            state.insertionDay = day
            state.insertionsToday = 0
        }
        let candidates = score(stack, scores: scores, moment: moment, configuration: configuration)
        var changes: [StackChange] = []

        // 1-2. Widget Suggestions.
        if var inserted = state.inserted {
            let current = candidates.first { $0.widget == inserted.widget && !$0.inStack }
            let score = current?.score ?? 0
            if !settings.widgetSuggestions || score * stickiness < configuration.insertionFloor {
                changes.append(.removed(inserted.widget))
                state.inserted = nil
            } else {
                inserted.score = score
                inserted.signals = current!.signals
                inserted.expectedEnd = current!.signals.declaredEnd
                state.inserted = inserted
            }
        }
        if state.inserted == nil, settings.widgetSuggestions, state.insertionsToday < configuration.maximumInsertionsPerDay,
           let best = candidates.first(where: { !$0.inStack && $0.score >= configuration.insertionFloor }) {
            state.inserted = InsertedWidget(widget: best.widget, since: t, expectedEnd: best.signals.declaredEnd, score: best.score, signals: best.signals)
            state.insertionsToday += 1
            changes.append(.inserted(best.widget))
        }

        // 3. Smart Rotate (frozen while a suggestion is on top).
        if let rotation = state.rotation, !stack.contains(rotation) || !settings.smartRotate {
            state.rotation = nil
            state.rotatedAt = nil
        }
        let current = state.rotation ?? stack.widgets[0]
        let currentScore = candidates.first { $0.widget == current && $0.inStack }?.score ?? 0
        let currentRelevant = currentScore * stickiness >= configuration.rotationFloor
        if settings.smartRotate, state.inserted == nil {
            var best: ScoredWidget?
            var bestEffective = 0.0
            for candidate in candidates where candidate.inStack {
                let effective = candidate.widget == current ? candidate.score * stickiness : candidate.score
                if effective > bestEffective { best = candidate; bestEffective = effective }
            }
            if let best, best.widget != current, bestEffective >= configuration.rotationFloor {
                let dwelt = state.rotatedAt.map { t.timeIntervalSince($0) >= configuration.minimumDwell } ?? true
                if dwelt || !currentRelevant {
                    changes.append(.rotated(from: current, to: best.widget))
                    state.rotation = best.widget
                    state.rotatedAt = t
                }
            }
        }

        // What is on top.
        if let inserted = state.inserted {
            return StackDecision(date: t, top: inserted.widget, reason: .inserted, topScore: inserted.score, topSignals: inserted.signals,
                                 inserted: inserted, changes: changes, candidates: candidates)
        }
        let top = state.rotation ?? stack.widgets[0]
        let topCandidate = candidates.first { $0.widget == top && $0.inStack }
        let topScore = topCandidate?.score ?? 0
        let reason: TopReason = settings.smartRotate && topScore * stickiness >= configuration.rotationFloor ? .rotated : .resting
        return StackDecision(date: t, top: top, reason: reason, topScore: topScore, topSignals: topCandidate?.signals ?? RelevanceSignals(),
                             inserted: nil, changes: changes, candidates: candidates)
    }

    // MARK: Scoring

    /// Every candidate's score at `moment`, best first (ties: stack widgets first, then by key).
    public func score(_ stack: SmartStack, scores: [ScoredTarget], moment: Moment, configuration: FusionConfiguration) -> [ScoredWidget] {
        let outside = ranker.suggestibleWidgets.filter { !stack.contains($0) }
        var wanted: [TargetKey: Double] = [:]
        for widget in stack.widgets + outside {
            if let key = ranker.configurationTarget(of: widget) { wanted[key] = 0 }
        }
        if !wanted.isEmpty {
            for scored in scores where wanted[scored.target] != nil { wanted[scored.target] = scored.probability }
        }
        func probability(_ widget: WidgetID) -> Double { ranker.configurationTarget(of: widget).flatMap { wanted[$0] } ?? 0 }
        var candidates: [ScoredWidget] = []
        for widget in stack.widgets {
            let signals = ranker.widgetSignals(widget, probability: probability(widget), timeline: true, moment: moment)
            candidates.append(ScoredWidget(widget: widget, score: signals.score(configuration), signals: signals, inStack: true))
        }
        for widget in outside {
            let signals = ranker.widgetSignals(widget, probability: probability(widget), timeline: false, moment: moment)
            candidates.append(ScoredWidget(widget: widget, score: signals.score(configuration), signals: signals, inStack: false))
        }
        return candidates.sorted {
            if $0.score != $1.score { return $0.score > $1.score }
            if $0.inStack != $1.inStack { return $0.inStack }
            return $0.widget < $1.widget
        }
    }
}
