import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking

// MARK: - One blend user at one moment (the service's default model)

/// What one `suggest` on the service's path needs for a user of the wide shape:
/// `targets` targets and `events` events about 5-30 minutes apart (the shape of
/// `dev/live-latency.py --many-targets` and `TARGETS=1000 dev/load-serve.sh`),
/// the default model (`BlendTrainer`, fixed prior) fitted on them, the ranker of
/// `SuggestScenario` (windows and timelines), and a moment 10 minutes after the last
/// event, carrying the last three events (already learned: no catch-up). Beside it, the profile
/// path: the plain profile model (`ProfileModel`, the blend's own component, the same configuration)
/// fitted on the same events, answering the same moment through the same ranker.
///
/// ```swift
/// let scenario = BlendSuggestScenario(targets: 1_000)
/// var ranker = SuggestionRanker(ranker: scenario.ranker)
/// let top4 = scenario.suggest(with: &ranker)
/// let profileTop4 = scenario.suggestProfilePath(with: &ranker)
/// ```
public struct BlendSuggestScenario: Sendable {
    public let user: SyntheticUser
    public let events: [Event]
    public let model: BlendModel
    /// The profile model alone, fitted on `events` as the blend fits its profile component.
    public let profile: ProfileModel
    public let ranker: Ranker
    public let moment: Moment

    public init(targets: Int, events count: Int = 5_000, seed: UInt64 = 11) {
        user = SyntheticUser(targets: targets, seed: seed)
        // 5-30 minutes apart on average: `count` events over count x 17.5 minutes.
        let days = max(1, Int((Double(count) * 17.5 / 1_440).rounded()))
        events = user.events(count: count, days: days)
        model = try! BlendTrainer().fit(TrainingSet(events: events, targets: user.targetsByKey))
        profile = ProfileModel(configuration: ProfileConfiguration(), events: events)
        let now = events.last!.date.addingTimeInterval(600)
        moment = Moment(date: now, utcOffset: 0, context: ["focus": "work", "place": "work"], recent: Array(events.suffix(3)))
        var random = SeededGenerator.derived(seed: seed, 0xB3_0003)
        ranker = Ranker(declarations: SuggestScenario.declarations(user: user, now: now, random: &random).declarations,
                        targets: user.targetsByKey)
    }

    /// One full suggestion: every target's blend score and probability, fused with windows
    /// and feedback, the top 4 selected and built.
    public func suggest(with suggestionRanker: inout SuggestionRanker) -> [Suggestion] {
        suggestionRanker.suggest(model.distribution(at: moment), moment: moment, k: 4)
    }

    /// The same suggestion from the profile model alone (the profile path): one scoring product, softmax, ranking.
    public func suggestProfilePath(with suggestionRanker: inout SuggestionRanker) -> [Suggestion] {
        suggestionRanker.suggest(profile.distribution(at: moment), moment: moment, k: 4)
    }

    /// The blend's score of every target alone (Σ weight x signal).
    public func logScores() -> [Double] { model.logScores(at: moment) }
}
