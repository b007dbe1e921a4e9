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
            adjustedDescriptions = adjusted.map(describe)
            descriptions = [:]
        }
    }
    /// The ranked entries of the last `rank` call, best first.
    package private(set) var ranked: [RankedTarget] = []
    /// The last call's top entries while ranking: small and free of strings (the key is read
    /// only to break ties), turned into `ranked` once at the end.
    private var best: [Candidate] = []
    /// Where each entry of `ranked` came from.
    private var rankedSources: [Candidate] = []
    /// The app and summary of each of the ranker's adjusted targets (same order as its `adjustedTargets`).
    private var adjustedDescriptions: [Description] = []
    /// The app and summary of plain targets by model index (valid for `knownTargets`): only those
    /// described so far (a few per call), not an entry per target, which a ranker made for one call
    /// (the service's) allocated, filled and freed each time.
    private var descriptions: [Int: Description] = [:]
    /// The target list of the last distribution ranked, held so its storage cannot be reused by
    /// another array: while distributions carry this same storage, `indexHints` and `descriptions`
    /// hold without hashing or comparing a key.
    private var knownTargets: [TargetKey] = []
    private var adjusted: [TargetKey] = []
    private var adjustedSignals: [RelevanceSignals] = []
    private var adjustedIndex: [Int?] = []
    /// The model indices of the adjusted targets, sorted (for `isAdjusted`).
    private var adjustedSorted: [Int] = []
    private var sticky: [Bool] = []
    /// Slots before this index are the ranker's; later ones are last time's shown items.
    private var staticAdjusted: Int = 0
    /// The model index of each of the ranker's adjusted targets in `knownTargets` (nil: not there).
    private var indexHints: [Int?] = []

    public init(ranker: Ranker) {
        self.ranker = ranker
        adjusted = ranker.adjustedTargets
        staticAdjusted = adjusted.count
        adjustedDescriptions = adjusted.map(describe)
    }

    /// One entry of the top-k buffer: a model index (plain target) or an adjusted slot.
    private struct Candidate {
        var effective: Double
        var score: Double
        var probability: Double
        /// The model index of a plain target, or -1.
        var index: Int
        /// The adjusted slot, or -1.
        var slot: Int
    }

    /// What a `Suggestion` shows for a target besides its score.
    private struct Description {
        let key: TargetKey
        let app: String
        let summary: String
    }

    private func describe(_ key: TargetKey) -> Description {
        let target = ranker.targets[key]
        return Description(key: key, app: target?.app ?? key.app, summary: target?.summary ?? key.rawValue)
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
        rankedSources.removeAll(keepingCapacity: true)
        best.removeAll(keepingCapacity: true)
        guard k > 0 else { return }
        let configuration = developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        let stickiness = 1 + configuration.hysteresis
        let targets = distribution.targets
        adopt(targets)
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
                let bar = best.count < k ? configuration.suggestionFloor : max(configuration.suggestionFloor, best[best.count - 1].effective)
                if plain < bar { break scan }
                guard !isAdjusted(i), ranker.allowsPlainTarget(targets[i], moment: moment) else { continue }
                insert(Candidate(effective: plain, score: plain, probability: probability, index: i, slot: -1), k: k, targets: targets)
            }
            if order.count < wanted { break }
            wanted *= 4
        }
        for slot in adjusted.indices {
            let probability = adjustedIndex[slot].map { distribution.probabilities[$0] } ?? 0
            adjustedSignals[slot].probability = probability
            let score = adjustedSignals[slot].score(configuration)
            let effective = sticky[slot] ? score * stickiness : score
            guard score > 0, effective >= configuration.suggestionFloor else { continue }
            insert(Candidate(effective: effective, score: score, probability: probability, index: -1, slot: slot), k: k, targets: targets)
        }
        for entry in best {
            let signals = entry.slot >= 0 ? adjustedSignals[entry.slot] : RelevanceSignals(probability: entry.probability)
            ranked.append(RankedTarget(target: key(of: entry, targets), score: entry.score, effective: entry.effective, signals: signals))
        }
        rankedSources = best
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
        var suggestions: [Suggestion] = []
        suggestions.reserveCapacity(ranked.count)
        for (entry, source) in zip(ranked, rankedSources) {
            let description = self.description(of: source, key: entry.target)
            suggestions.append(Suggestion(target: entry.target, app: description.app, summary: description.summary, score: entry.score,
                                          signals: entry.signals, configuration: configuration, utcOffset: moment.utcOffset ?? 0))
        }
        return suggestions
    }

    /// The app and summary of a ranked entry: the ranker's adjusted targets' were looked up
    /// when it was set, plain targets' once per model index (no key hashed while the target list stays).
    private mutating func description(of source: Candidate, key: TargetKey) -> Description {
        if source.slot >= 0 { return source.slot < staticAdjusted ? adjustedDescriptions[source.slot] : describe(key) }
        if let cached = descriptions[source.index] { return cached }
        let found = describe(key)
        descriptions[source.index] = found
        return found
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
        if indexHints.count != staticAdjusted { indexHints = adjusted.prefix(staticAdjusted).map { distribution.index(of: $0) } }
        let focus = moment.context["focus"]
        for (slot, key) in adjusted.enumerated() {
            if slot < staticAdjusted {
                adjustedSignals.append(ranker.targetSignals(adjusted: slot, probability: 0, moment: moment, focus: focus))
                adjustedIndex.append(indexHints[slot])
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

    /// Starts using `targets` (a distribution's target list): when its storage is not the one the
    /// hints and descriptions were found in, they are found again (by key) as needed.
    private mutating func adopt(_ targets: [TargetKey]) {
        let same = targets.count == knownTargets.count
            && targets.withUnsafeBufferPointer { a in knownTargets.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        guard !same else { return }
        knownTargets = targets
        indexHints = []
        descriptions = [:]
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

    /// The key of a candidate: its model target or its adjusted target.
    @inline(__always)
    private func key(of entry: Candidate, _ targets: [TargetKey]) -> TargetKey {
        entry.slot >= 0 ? adjusted[entry.slot] : targets[entry.index]
    }

    /// Inserts into the sorted top-k buffer (effective score descending, then key ascending).
    @inline(__always)
    private mutating func insert(_ entry: Candidate, k: Int, targets: [TargetKey]) {
        var position = best.count
        while position > 0 {
            let other = best[position - 1]
            if other.effective > entry.effective || (other.effective == entry.effective && key(of: other, targets) < key(of: entry, targets)) { break }
            position -= 1
        }
        guard position < k else { return }
        if best.count == k { best.removeLast() }
        best.insert(entry, at: position)
    }
}
