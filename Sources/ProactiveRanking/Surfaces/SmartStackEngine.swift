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
///    when its relevance ends it is removed, and once no suggestion is left the
///    stack shows what it showed before (rotation is frozen meanwhile).
/// 2. The best widgets *not* in the stack with `score >= insertionFloor` are
///    inserted, at most `maximumConcurrentInsertions` at once and
///    `maximumInsertionsPerDay` per local day.
/// 3. Smart Rotate turns to the best widget *in* the stack (timeline relevance
///    counts here) when its effective score (the current widget's is multiplied
///    by `1 + hysteresis`) clears `rotationFloor` and beats the current one, and
///    the current one has been on top for `minimumDwell` or has stopped being
///    relevant. When nothing clears the floor the stack stays where it is.
/// 4. On top: the best inserted widget (the one on top stays while near-equal),
///    else the widget Smart Rotate is on.
public struct SmartStackEngine: Sendable {
    public var ranker: Ranker

    public init(ranker: Ranker) { self.ranker = ranker }

    /// One step at `moment`.
    /// - Parameters:
    ///   - scores: the model's scores at `moment` (any order).
    ///   - state: what the previous step left; returned updated.
    public func step(_ stack: SmartStack, scores: [ScoredTarget], moment: Moment, state: inout StackState) -> StackDecision {
        step(stack, distribution: TargetDistribution(ranked: scores), moment: moment, state: &state)
    }

    /// One step at `moment`, with the model's probabilities unsorted (`FittedModel.distribution(at:)`):
    /// each widget's configuration target is one lookup.
    public func step(_ stack: SmartStack, distribution: TargetDistribution, moment: Moment, state: inout StackState) -> StackDecision {
        let settings = stack.settings
        let configuration = settings.developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        let stickiness = 1 + configuration.hysteresis
        let t = moment.date
        let day = ranker.clock.read(t, writtenOffset: moment.utcOffset).day
        if state.insertionDay != day {
            state.insertionDay = day
            state.insertionsToday = 0
        }
        let candidates = score(stack, distribution: distribution, moment: moment, configuration: configuration)
        var changes: [StackChange] = []

        // 1. Inserted widgets leave when their relevance ends.
        var kept: [InsertedWidget] = []
        for var inserted in state.inserted {
            let current = candidates.first { $0.widget == inserted.widget && !$0.inStack }
            let score = current?.score ?? 0
            if !settings.widgetSuggestions || score * stickiness < configuration.insertionFloor {
                changes.append(.removed(inserted.widget))
                continue
            }
            inserted.score = score
            inserted.signals = current!.signals
            inserted.expectedEnd = current!.signals.declaredEnd
            kept.append(inserted)
        }
        state.inserted = kept
        // 2. Widget Suggestions insert the best widgets not in the stack, within the limits.
        if settings.widgetSuggestions {
            for candidate in candidates where !candidate.inStack && candidate.score >= configuration.insertionFloor {
                guard state.inserted.count < configuration.maximumConcurrentInsertions,
                      state.insertionsToday < configuration.maximumInsertionsPerDay else { break }
                if state.inserted.contains(where: { $0.widget == candidate.widget }) { continue }
                state.inserted.append(InsertedWidget(widget: candidate.widget, since: t, expectedEnd: candidate.signals.declaredEnd,
                                                     score: candidate.score, signals: candidate.signals))
                state.insertionsToday += 1
                changes.append(.inserted(candidate.widget))
            }
        }

        // 3. Smart Rotate (frozen while a suggestion is in the stack, so it returns to its state).
        if let rotation = state.rotation, !stack.contains(rotation) || !settings.smartRotate {
            state.rotation = nil
            state.rotatedAt = nil
        }
        let current = state.rotation ?? stack.widgets[0]
        let currentScore = candidates.first { $0.widget == current && $0.inStack }?.score ?? 0
        let currentRelevant = currentScore * stickiness >= configuration.rotationFloor
        if settings.smartRotate, state.inserted.isEmpty {
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

        // 4. What is on top: the best inserted widget (the one shown stays while near-equal), else the rotation.
        var top: InsertedWidget?
        var topEffective = 0.0
        for inserted in state.inserted {
            let effective = inserted.widget == state.shown ? inserted.score * stickiness : inserted.score
            if top == nil || effective > topEffective { top = inserted; topEffective = effective }
        }
        if let top {
            state.shown = top.widget
            return StackDecision(date: t, top: top.widget, reason: .inserted, topScore: top.score, topSignals: top.signals,
                                 inserted: state.inserted, changes: changes, candidates: candidates)
        }
        let resting = state.rotation ?? stack.widgets[0]
        state.shown = resting
        let restingCandidate = candidates.first { $0.widget == resting && $0.inStack }
        let restingScore = restingCandidate?.score ?? 0
        let reason: TopReason = settings.smartRotate && restingScore * stickiness >= configuration.rotationFloor ? .rotated : .resting
        return StackDecision(date: t, top: resting, reason: reason, topScore: restingScore, topSignals: restingCandidate?.signals ?? RelevanceSignals(),
                             inserted: [], changes: changes, candidates: candidates)
    }

    // MARK: Scoring

    /// Every candidate's score at `moment`, best first (ties: stack widgets first, then by key).
    package func score(_ stack: SmartStack, scores: [ScoredTarget], moment: Moment, configuration: FusionConfiguration) -> [ScoredWidget] {
        score(stack, distribution: TargetDistribution(ranked: scores), moment: moment, configuration: configuration)
    }

    /// `score` with the model's probabilities unsorted.
    package func score(_ stack: SmartStack, distribution: TargetDistribution, moment: Moment, configuration: FusionConfiguration) -> [ScoredWidget] {
        let outside = ranker.suggestibleWidgets.filter { !stack.contains($0) }
        func probability(_ widget: WidgetID) -> Double { ranker.configurationTarget(of: widget).map { distribution.probability(of: $0) } ?? 0 }
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
