import Foundation
import ProactiveCore
import ProactiveModels
import Testing
@testable import ProactiveRanking

@Suite struct SuggestionRankerTests {
    // MARK: Helpers

    /// `count` targets over 5 apps with a deterministic, descending probability list (Zipf-like).
    static func catalogue(_ count: Int) -> (scores: [ScoredTarget], targets: [TargetKey: Target]) {
        var targets: [TargetKey: Target] = [:]
        var raw: [(TargetKey, Double)] = []
        for index in 0..<count {
            let app = "com.example.app\(index % 5)"
            let parameters: [String: ParameterValue] = ["item": .string("item\(index)")]
            let key = TargetKey(app: app, intent: "Do", parameters: parameters)
            targets[key] = Target(key: key, app: app, intent: "Do", parameters: parameters, summary: "Do item\(index)")
            raw.append((key, 1 / Double(index + 1)))
        }
        let total = raw.reduce(0) { $0 + $1.1 }
        let scores = raw.map { ScoredTarget(target: $0.0, probability: $0.1 / total) }
            .sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.target < $1.target }
        return (scores, targets)
    }

    /// Every candidate scored with no shortcut, then sorted: what the ranker must equal.
    static func bruteForce(_ ranker: Ranker, _ scores: [ScoredTarget], moment: Moment, k: Int, previous: SuggestionState) -> [TargetKey] {
        let configuration = ranker.configuration
        var all: [(TargetKey, Double)] = []
        var seen = Set<TargetKey>()
        for entry in scores { seen.insert(entry.target) }
        let keys = Array(seen) + ranker.adjustedTargets.filter { !seen.contains($0) }
        let probabilities = Dictionary(uniqueKeysWithValues: scores.map { ($0.target, $0.probability) })
        for key in keys {
            let score = ranker.targetSignals(key, probability: probabilities[key] ?? 0, moment: moment).score(configuration)
            let effective = previous.shown.contains(key) ? score * (1 + configuration.hysteresis) : score
            if score > 0, effective >= configuration.suggestionFloor { all.append((key, effective)) }
        }
        return all.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(k).map(\.0)
    }

    // MARK: Top-k

    @Test func topKByProbabilityWithSummariesAndReasons() {
        let (scores, targets) = Self.catalogue(100)
        var ranker = SuggestionRanker(ranker: Ranker(targets: targets))
        let suggestions = ranker.suggest(scores, moment: Day.moment(9), k: 3)
        #expect(suggestions.map(\.target) == Array(scores.prefix(3).map(\.target)))
        #expect(suggestions[0].summary == "Do item0" && suggestions[0].app == "com.example.app0")
        #expect(suggestions[0].why == ["predicted \(RelevanceSignals.percent(scores[0].probability)) now"])
        #expect(Set(suggestions.map(\.target)).count == 3)               // de-duplicated
        #expect(ranker.suggest(scores, moment: Day.moment(9), k: 0).isEmpty)
        #expect(ranker.suggest(Array(scores.prefix(2)), moment: Day.moment(9), k: 5).count == 2)   // asks for more than exist
    }

    @Test func confidenceFloorShowsNothingRatherThanNoise() {
        let flat = (0..<200).map { ScoredTarget(target: TargetKey(rawValue: "app:t\($0)"), probability: 1.0 / 200) }
        var ranker = SuggestionRanker(ranker: Ranker())
        #expect(ranker.suggest(flat, moment: Day.moment(9), k: 4).isEmpty)
        #expect(ranker.suggest(flat, moment: Day.moment(9), k: 4, developerMode: true).count == 4)
    }

    @Test func aDeclaredWindowLiftsItsIntentAndFeedbackLowersAnother() throws {
        let (scores, targets) = Self.catalogue(50)
        let deep = scores[40].target                                        // far down the model's list
        let top = scores[0].target
        let deepTarget = targets[deep]!
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: deepTarget.app, shortcuts: [
            RelevantShortcut(widget: WidgetID(app: deepTarget.app, kind: "w", configuration: WidgetConfiguration(intent: "Do", parameters: deepTarget.parameters)),
                             providers: [.date(start: Day.at(9), end: Day.at(10))]),
        ], declaredAt: Day.at(0)))
        let dismiss = try FeedbackEvent.make(date: Day.at(8, 55), kind: .dismiss, scope: .target(top), app: targets[top]!.app)
        var ranker = SuggestionRanker(ranker: Ranker(declarations: declarations, feedback: FeedbackIndex([dismiss]), targets: targets))
        let suggestions = ranker.suggest(scores, moment: Day.moment(9, 5), k: 6)
        #expect(suggestions[0].target == deep)
        #expect(suggestions[0].why.first?.hasPrefix("window 09:00–10:00") == true)
        #expect(!suggestions.prefix(4).contains { $0.target == top })   // 0.22 x 0.22 ten minutes after "not now"
        #expect(suggestions.contains { $0.target == top && $0.why.contains { $0.hasPrefix("not now at 08:55") } })
        // Outside the window it is back to its model probability.
        #expect(ranker.suggest(scores, moment: Day.moment(10, 5), k: 4).first?.target != deep)
    }

    @Test func focusGateAndIneligibleIntentsFilter() throws {
        let (scores, targets) = Self.catalogue(20)
        let gate = ClosureFocusGate { candidate, focus, _ in focus != "work" || candidate.app != "com.example.app0" }
        let hidden = targets[scores[1].target]!
        let definitions = try IntentDefinitionSet([IntentDefinition(app: hidden.app, name: "Do", parameters: [ParameterDefinition(name: "item", type: .string)],
                                                                    combinations: [ParameterCombination(parameters: ["item"], summary: "Do ${item}")],
                                                                    isEligibleForSuggestions: false)])
        var ranker = SuggestionRanker(ranker: Ranker(targets: targets, resolver: TargetResolver(definitions: definitions), focusGate: gate))
        let atWork = ranker.suggest(scores, moment: Day.moment(9, context: ["focus": "work"]), k: 10)
        #expect(!atWork.contains { $0.app == "com.example.app0" })
        #expect(!atWork.contains { $0.app == hidden.app })                 // every target of that app/intent is ineligible
        let personal = ranker.suggest(scores, moment: Day.moment(9, context: ["focus": "personal"]), k: 10)
        #expect(personal.contains { $0.app == "com.example.app0" })
    }

    // MARK: Stability

    @Test func theShownItemDoesNotFlipBetweenNearEqualScores() {
        let a = TargetKey(rawValue: "app:a")
        let b = TargetKey(rawValue: "app:b")
        var ranker = SuggestionRanker(ranker: Ranker())
        var state = SuggestionState()
        // Minute by minute the two swap places by a hair; the first shown stays first.
        for minute in 0..<30 {
            let (high, low) = minute % 2 == 0 ? (a, b) : (b, a)
            let scores = [ScoredTarget(target: high, probability: 0.41), ScoredTarget(target: low, probability: 0.40)]
            ranker.rank(scores, moment: Day.moment(9, minute), k: 1, previous: state)
            state = ranker.state
            #expect(state.shown == [a], "minute \(minute)")
        }
        // A clear winner takes over.
        ranker.rank([ScoredTarget(target: b, probability: 0.6), ScoredTarget(target: a, probability: 0.3)], moment: Day.moment(9, 30), k: 1, previous: state)
        #expect(ranker.state.shown == [b])
    }

    // MARK: The selection equals the full computation

    @Test(arguments: [(10, 1), (100, 1), (1000, 1), (1000, 40)])   // 40 dismissed: more adjusted targets than the linear scan handles
    func earlyExitMatchesBruteForce(count: Int, dismissed: Int) throws {
        let (scores, targets) = Self.catalogue(count)
        var declarations = Declarations()
        var events: [FeedbackEvent] = []
        // A window on a deep target, dismissals and a never rule on top ones, an app rule in a context.
        let deep = targets[scores[count * 3 / 4].target]!
        declarations.shortcuts.replace(RelevantShortcutSet(app: deep.app, shortcuts: [
            RelevantShortcut(widget: WidgetID(app: deep.app, kind: "w", configuration: WidgetConfiguration(intent: "Do", parameters: deep.parameters)),
                             providers: [.date(start: Day.at(9), end: Day.at(10))]),
        ], declaredAt: Day.at(0)))
        for index in stride(from: 0, to: dismissed * 7, by: 7) {
            events.append(try FeedbackEvent.make(date: Day.at(8), kind: .dismiss, scope: .target(scores[index].target), app: targets[scores[index].target]!.app))
        }
        events.append(try FeedbackEvent.make(date: Day.at(8), kind: .never, scope: .target(scores[2].target), app: targets[scores[2].target]!.app))
        events.append(try FeedbackEvent.make(date: Day.at(8), kind: .never, scope: .app("com.example.app3"), context: ["focus": "work"]))
        // Under a "gym" Focus only app4 passes the gate: the selection must widen past hidden targets.
        let gate = ClosureFocusGate { candidate, focus, _ in focus != "gym" || candidate.app == "com.example.app4" }
        let base = Ranker(declarations: declarations, feedback: FeedbackIndex(events), targets: targets, focusGate: gate)
        var ranker = SuggestionRanker(ranker: base)
        var previous = SuggestionState(shown: [scores[5].target])
        for (hour, context) in [(9, ["focus": "work"]), (11, [:]), (9, [:]), (9, ["focus": "gym"])] {
            let moment = Day.moment(hour, context: context)
            for k in [1, 4, 12] {
                ranker.rank(scores, moment: moment, k: k, previous: previous)
                #expect(ranker.ranked.map(\.target) == Self.bruteForce(base, scores, moment: moment, k: k, previous: previous), "k=\(k) at \(hour) \(context)")
            }
            previous = ranker.state
        }
    }

    /// One `SuggestionRanker` fed the same probabilities in changing target orders (its
    /// remembered positions of the adjusted targets go stale) and a distribution missing a
    /// declared target: every call equals the brute force.
    @Test func reorderedDistributionsMatchBruteForce() throws {
        let (scores, targets) = Self.catalogue(300)
        var declarations = Declarations()
        for index in [7, 150, 299] {
            let target = targets[scores[index].target]!
            declarations.shortcuts.replace(RelevantShortcutSet(app: target.app, shortcuts: [
                RelevantShortcut(widget: WidgetID(app: target.app, kind: "w\(index)", configuration: WidgetConfiguration(intent: "Do", parameters: target.parameters)),
                                 providers: [.date(start: Day.at(9), end: Day.at(10))]),
            ], declaredAt: Day.at(0)))
        }
        let events = [try FeedbackEvent.make(date: Day.at(8), kind: .dismiss, scope: .target(scores[1].target), app: targets[scores[1].target]!.app)]
        let base = Ranker(declarations: declarations, feedback: FeedbackIndex(events), targets: targets)
        #expect(base.adjustedTargets.count >= 4)
        var ranker = SuggestionRanker(ranker: base)
        var random = SeededGenerator(seed: 12)
        let moment = Day.moment(9, context: [:])
        for round in 0 ..< 6 {
            var shuffled = scores.shuffled(using: &random)
            if round == 3 { shuffled.removeAll { $0.target == scores[150].target } }
            ranker.rank(shuffled, moment: moment, k: 4)
            #expect(ranker.ranked.map(\.target) == Self.bruteForce(base, shuffled, moment: moment, k: 4, previous: SuggestionState()), "round \(round)")
            for (slot, key) in base.adjustedTargets.enumerated() {
                #expect(base.targetSignals(adjusted: slot, probability: 0.01, moment: moment, focus: moment.context["focus"]) == base.targetSignals(key, probability: 0.01, moment: moment))
            }
        }
    }

    /// One `SuggestionRanker` alternating between two models' distributions (different target
    /// orders), each reused as is (the same target storage twice in a row): the apps and
    /// summaries it caches by model index always belong to the suggested target.
    @Test func summariesFollowTheDistributionsTargets() {
        let (scores, targets) = Self.catalogue(50)
        var random = SeededGenerator(seed: 3)
        let first = TargetDistribution(ranked: scores)
        let second = TargetDistribution(ranked: scores.shuffled(using: &random).enumerated().map { position, entry in
            // A different order and different probabilities: other targets on top.
            ScoredTarget(target: entry.target, probability: 1 / Double(position + 2))
        })
        var ranker = SuggestionRanker(ranker: Ranker(targets: targets))
        let moment = Day.moment(9)
        for distribution in [first, first, second, second, first, second] {
            let suggestions = ranker.suggest(distribution, moment: moment, k: 4)
            #expect(suggestions.map(\.target) == distribution.top(4).map(\.target))
            for suggestion in suggestions {
                #expect(suggestion.summary == targets[suggestion.target]!.summary && suggestion.app == targets[suggestion.target]!.app)
            }
        }
    }

    /// A declared target's windows (overlapping, expired, future, one ending last), with no tap
    /// recorded (the precomputed windows) and with a tap on another target (every shortcut read
    /// again): the window is the latest-ending one the moment is inside.
    @Test func declaredWindowsWithAndWithoutTaps() throws {
        let (scores, targets) = Self.catalogue(10)
        let target = targets[scores[3].target]!
        let windows: [(Int, Int)] = [(8, 10), (9, 12), (6, 7), (13, 15), (9, 11)]
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: target.app, shortcuts: windows.enumerated().map { index, window in
            RelevantShortcut(widget: WidgetID(app: target.app, kind: "w\(index % 2)", configuration: WidgetConfiguration(intent: "Do", parameters: target.parameters)),
                             providers: [.date(start: Day.at(window.0), end: Day.at(window.1))])
        }, declaredAt: Day.at(0)))
        let other = scores[0].target
        let tap = try FeedbackEvent.make(date: Day.at(5), kind: .tap, scope: .target(other), app: targets[other]!.app)
        for feedback in [FeedbackIndex(), FeedbackIndex([tap])] {
            let ranker = Ranker(declarations: declarations, feedback: feedback, targets: targets)
            for hour in [7, 9, 11, 14, 16] {
                let t = Day.at(hour, 30)
                let expected = windows.map { DateInterval(start: Day.at($0.0), end: Day.at($0.1)) }
                    .filter { $0.start <= t && t < $0.end }.max { $0.end < $1.end }
                let signals = ranker.targetSignals(target.key, probability: 0.1, moment: Day.moment(hour, 30))
                #expect(signals.window == expected, "\(hour):30, taps: \(feedback.hasTaps)")
            }
        }
    }
}
