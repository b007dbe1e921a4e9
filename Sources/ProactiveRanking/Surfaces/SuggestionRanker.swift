import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Top-k intent suggestions

/// Ranks intent suggestions for one moment: the top `k` targets by fused score,
/// de-duplicated by target, above the confidence floor, with hysteresis.
///
/// The hot path. It takes the model's probabilities unsorted
/// (`FittedModel.distribution(at:)`): the few *adjusted* targets (declared by
/// a shortcut, with feedback, ineligible, or shown last time) are looked up by
/// key, and every other target scores `modelWeight · p`, so only the best few
/// of them by probability can enter; they are selected in one pass over the
/// probabilities (`TargetDistribution.topIndices`), widening the selection
/// only when a Focus filter or never rule hides many of them. Buffers are kept
/// between calls.
///
/// ```swift
/// var ranker = SuggestionRanker(ranker: Ranker(targets: training.targets))
/// let top = ranker.suggest(model.distribution(at: moment), moment: moment, k: 4)
/// ```
/// - Complexity: O(n + a) for n targets and a adjusted targets in the usual
///   case (one selection pass and a hash lookups); when hidden targets use up
///   the selection, another pass selects four times as many.
public struct SuggestionRanker: Sendable {
    public var ranker: Ranker {
        didSet {
            adjusted = ranker.adjustedTargets
            staticAdjusted = adjusted.count
            indexHints = []
        }
    }
    /// The ranked entries of the last `rank` call, best first.
    public private(set) var ranked: [RankedTarget] = []
    private var adjusted: [TargetKey] = []
    private var adjustedSignals: [RelevanceSignals] = []
    private var adjustedIndex: [Int?] = []
    /// The model indices of the adjusted targets, sorted (for `isAdjusted`).
    private var adjustedSorted: [Int] = []
    private var sticky: [Bool] = []
    /// Slots before this index are the ranker's; later ones are last time's shown items.
    private var staticAdjusted: Int = 0
    /// Last call's model index of each of the ranker's adjusted targets: checked
    /// (`targets[hint] == key`, keys are unique) before a hash lookup is spent.
    private var indexHints: [Int?] = []

    public init(ranker: Ranker) {
        self.ranker = ranker
        adjusted = ranker.adjustedTargets
        staticAdjusted = adjusted.count
    }

    // MARK: Ranking

    /// Fills `ranked` with at most `k` entries for `moment`, best first.
    /// - Parameters:
    ///   - distribution: the model's probabilities at `moment`.
    ///   - previous: what was shown last time (its items are sticky).
    ///   - developerMode: lifts the floor (every candidate with a positive score qualifies).
    public mutating func rank(_ distribution: TargetDistribution, moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                              developerMode: Bool = false) {
        ranked.removeAll(keepingCapacity: true)
        guard k > 0 else { return }
        let configuration = developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        let stickiness = 1 + configuration.hysteresis
        prepareAdjusted(previous: previous, moment: moment, distribution: distribution)

        // Plain targets, best probability first, until nothing further can enter.
        var wanted = k + adjusted.count
        var scanned = 0
        scan: while true {
            let order = distribution.topIndices(wanted)
            while scanned < order.count {
                let i = order[scanned]
                scanned += 1
                let probability = distribution.probabilities[i]
                let plain = configuration.modelWeight * probability
                let bar = ranked.count < k ? configuration.suggestionFloor : max(configuration.suggestionFloor, ranked[ranked.count - 1].effective)
                if plain < bar { break scan }
                let key = distribution.targets[i]
                guard !isAdjusted(i), ranker.allowsPlainTarget(key, moment: moment) else { continue }
                insert(RankedTarget(target: key, score: plain, effective: plain, signals: RelevanceSignals(probability: probability)), k: k)
            }
            if order.count < wanted { break }
            wanted *= 4
        }
        for slot in adjusted.indices {
            var signals = adjustedSignals[slot]
            signals.probability = adjustedIndex[slot].map { distribution.probabilities[$0] } ?? 0
            let score = signals.score(configuration)
            let effective = sticky[slot] ? score * stickiness : score
            guard score > 0, effective >= configuration.suggestionFloor else { continue }
            insert(RankedTarget(target: adjusted[slot], score: score, effective: effective, signals: signals), k: k)
        }
    }

    /// `rank` for a list of scores (any order); indexes it first (O(n)).
    public mutating func rank(_ scores: [ScoredTarget], moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                              developerMode: Bool = false) {
        rank(TargetDistribution(ranked: scores), moment: moment, k: k, previous: previous, developerMode: developerMode)
    }

    /// Ranks and builds the suggestions (summaries; reasons are rendered when read), best first.
    public mutating func suggest(_ distribution: TargetDistribution, moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                                 developerMode: Bool = false) -> [Suggestion] {
        rank(distribution, moment: moment, k: k, previous: previous, developerMode: developerMode)
        let configuration = developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        return ranked.map { entry in
            let target = ranker.targets[entry.target]
            return Suggestion(target: entry.target, app: target?.app ?? entry.target.app, summary: target?.summary ?? entry.target.rawValue,
                              score: entry.score, signals: entry.signals, configuration: configuration, utcOffset: moment.utcOffset ?? 0)
        }
    }

    /// `suggest` for a list of scores (any order).
    public mutating func suggest(_ scores: [ScoredTarget], moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                                 developerMode: Bool = false) -> [Suggestion] {
        suggest(TargetDistribution(ranked: scores), moment: moment, k: k, previous: previous, developerMode: developerMode)
    }

    /// The state to pass to the next call (what `ranked` shows now).
    public var state: SuggestionState { SuggestionState(shown: ranked.map(\.target)) }

    // MARK: Pieces

    /// Sets up the adjusted targets for this call: the ranker's, plus last time's shown items.
    private mutating func prepareAdjusted(previous: SuggestionState, moment: Moment, distribution: TargetDistribution) {
        adjusted.removeSubrange(staticAdjusted...)
        for key in previous.shown where !adjusted.contains(key) { adjusted.append(key) }
        adjustedSignals.removeAll(keepingCapacity: true)
        adjustedIndex.removeAll(keepingCapacity: true)
        sticky.removeAll(keepingCapacity: true)
        if indexHints.count != staticAdjusted { indexHints = [Int?](repeating: nil, count: staticAdjusted) }
        let focus = moment.context["focus"]
        for (slot, key) in adjusted.enumerated() {
            if slot < staticAdjusted {
                adjustedSignals.append(ranker.targetSignals(adjusted: slot, probability: 0, moment: moment, focus: focus))
                let index: Int?
                if let hint = indexHints[slot], hint < distribution.count, distribution.targets[hint] == key {
                    index = hint
                } else {
                    index = distribution.index(of: key)
                    indexHints[slot] = index
                }
                adjustedIndex.append(index)
            } else {
                adjustedSignals.append(ranker.targetSignals(key, probability: 0, moment: moment))
                adjustedIndex.append(distribution.index(of: key))
            }
            sticky.append(previous.shown.contains(key))
        }
        adjustedSorted.removeAll(keepingCapacity: true)
        for index in adjustedIndex { if let index { adjustedSorted.append(index) } }
        adjustedSorted.sort()
    }

    /// Whether target index `i` is one of this call's adjusted targets (binary search).
    @inline(__always)
    private func isAdjusted(_ i: Int) -> Bool {
        var low = 0
        var high = adjustedSorted.count
        while low < high {
            let middle = (low + high) / 2
            if adjustedSorted[middle] < i { low = middle + 1 } else { high = middle }
        }
        return low < adjustedSorted.count && adjustedSorted[low] == i
    }

    /// Inserts into the sorted top-k buffer (effective score descending, then key ascending).
    @inline(__always)
    private mutating func insert(_ entry: RankedTarget, k: Int) {
        var position = ranked.count
        while position > 0 {
            let other = ranked[position - 1]
            if other.effective > entry.effective || (other.effective == entry.effective && other.target < entry.target) { break }
            position -= 1
        }
        guard position < k else { return }
        if ranked.count == k { ranked.removeLast() }
        ranked.insert(entry, at: position)
    }
}
