import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Top-k intent suggestions

/// Ranks intent suggestions for one moment: the top `k` targets by fused score,
/// de-duplicated by target, above the confidence floor, with hysteresis.
///
/// The hot path. It reads the model's list (highest probability first, as
/// `FittedModel.scores(at:)` promises) and stops as soon as nothing further
/// down can enter the top `k`: targets without declarations or feedback score
/// `modelWeight · p`, which only falls along the list, and the few *adjusted*
/// targets (declared by a shortcut, with feedback, or shown last time) are
/// bounded from above. Buffers are kept between calls, so after the first call
/// `rank` allocates nothing when no target is adjusted (and O(adjusted) otherwise).
///
/// ```swift
/// var ranker = SuggestionRanker(ranker: Ranker(targets: training.targets))
/// let top = ranker.suggest(model.scores(at: moment), moment: moment, k: 4)
/// ```
/// - Complexity: O(m · a + k²) where m is how far down the list the scan goes
///   (about k when nothing is adjusted) and a the number of adjusted targets
///   (looked up by key length first, then compared).
public struct SuggestionRanker: Sendable {
    public var ranker: Ranker
    /// The ranked entries of the last `rank` call, best first.
    public private(set) var ranked: [RankedTarget] = []
    private var adjusted: [TargetKey] = []
    private var adjustedSignals: [RelevanceSignals] = []
    private var adjustedProbability: [Double] = []
    private var adjustedFound: [Bool] = []
    private var sticky: [Bool] = []
    /// Per adjusted slot: a cheap fingerprint of the key (UTF-8 length and last byte),
    /// compared before the full key.
    private var fingerprints: [UInt64] = []
    /// Slot by key, used instead of the fingerprint scan when many targets are adjusted.
    private var slotByKey: [TargetKey: Int] = [:]
    /// Slots before this index are the ranker's; later ones are last time's shown items.
    private var staticAdjusted: Int = 0
    /// Above this many adjusted targets a hash lookup beats comparing fingerprints.
    static let linearScanLimit = 24

    public init(ranker: Ranker) {
        self.ranker = ranker
        adjusted = ranker.adjustedTargets
        staticAdjusted = adjusted.count
        fingerprints = adjusted.map(Self.fingerprint)
    }

    /// UTF-8 length and last byte: keys of one intent differ at the end.
    @inline(__always)
    static func fingerprint(_ key: TargetKey) -> UInt64 {
        let utf8 = key.rawValue.utf8
        return UInt64(utf8.count) << 8 | UInt64(utf8.last ?? 0)
    }

    // MARK: Ranking

    /// Fills `ranked` with at most `k` entries for `moment`, best first.
    /// - Parameters:
    ///   - scores: the model's scores at `moment`, highest probability first.
    ///   - previous: what was shown last time (its items are sticky).
    ///   - developerMode: lifts the floor (every candidate with a positive score qualifies).
    public mutating func rank(_ scores: [ScoredTarget], moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                              developerMode: Bool = false) {
        ranked.removeAll(keepingCapacity: true)
        guard k > 0 else { return }
        let configuration = developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        let stickiness = 1 + configuration.hysteresis
        prepareAdjusted(previous: previous, moment: moment)

        var unfound = adjusted.count
        var index = 0
        while index < scores.count {
            let entry = scores[index]
            index += 1
            let plain = configuration.modelWeight * entry.probability
            let bar = ranked.count < k ? configuration.suggestionFloor : max(configuration.suggestionFloor, ranked[ranked.count - 1].effective)
            if plain < bar {
                // Nothing plain below here can enter; stop once no adjusted target can either.
                if unfound == 0 || (index & 31 == 0 && !anyUnfoundCanReach(bar, probability: entry.probability, configuration: configuration, stickiness: stickiness)) {
                    break
                }
            }
            if unfound > 0, let slot = adjustedSlot(of: entry.target) {
                if !adjustedFound[slot] {
                    adjustedFound[slot] = true
                    adjustedProbability[slot] = entry.probability
                    unfound -= 1
                }
                continue
            }
            guard plain >= bar, ranker.allowsPlainTarget(entry.target, moment: moment) else { continue }
            insert(RankedTarget(target: entry.target, score: plain, effective: plain, signals: RelevanceSignals(probability: entry.probability)), k: k)
        }
        for slot in adjusted.indices {
            var signals = adjustedSignals[slot]
            signals.probability = adjustedProbability[slot]
            let score = signals.score(configuration)
            let effective = sticky[slot] ? score * stickiness : score
            guard score > 0, effective >= configuration.suggestionFloor else { continue }
            insert(RankedTarget(target: adjusted[slot], score: score, effective: effective, signals: signals), k: k)
        }
    }

    /// Ranks and builds the suggestions (summaries and reasons), best first.
    public mutating func suggest(_ scores: [ScoredTarget], moment: Moment, k: Int, previous: SuggestionState = SuggestionState(),
                                 developerMode: Bool = false) -> [Suggestion] {
        rank(scores, moment: moment, k: k, previous: previous, developerMode: developerMode)
        let configuration = developerMode ? ranker.configuration.liftingLimits : ranker.configuration
        return ranked.map { entry in
            let target = ranker.targets[entry.target]
            return Suggestion(target: entry.target, app: target?.app ?? entry.target.app, summary: target?.summary ?? entry.target.rawValue,
                              score: entry.score, signals: entry.signals, why: entry.signals.why(configuration, utcOffset: moment.utcOffset ?? 0))
        }
    }

    /// The state to pass to the next call (what `ranked` shows now).
    public var state: SuggestionState { SuggestionState(shown: ranked.map(\.target)) }

    // MARK: Pieces

    /// Sets up the adjusted targets for this call: the ranker's, plus last time's shown items.
    private mutating func prepareAdjusted(previous: SuggestionState, moment: Moment) {
        adjusted.removeSubrange(staticAdjusted...)
        fingerprints.removeSubrange(staticAdjusted...)
        for key in previous.shown where !adjusted[..<staticAdjusted].contains(key) && !adjusted[staticAdjusted...].contains(key) {
            adjusted.append(key)
            fingerprints.append(Self.fingerprint(key))
        }
        if adjusted.count > Self.linearScanLimit {
            slotByKey.removeAll(keepingCapacity: true)
            for (slot, key) in adjusted.enumerated() { slotByKey[key] = slot }
        }
        adjustedSignals.removeAll(keepingCapacity: true)
        adjustedProbability.removeAll(keepingCapacity: true)
        adjustedFound.removeAll(keepingCapacity: true)
        sticky.removeAll(keepingCapacity: true)
        for key in adjusted {
            adjustedSignals.append(ranker.targetSignals(key, probability: 0, moment: moment))
            adjustedProbability.append(0)
            adjustedFound.append(false)
            sticky.append(previous.shown.contains(key))
        }
    }

    @inline(__always)
    private func adjustedSlot(of key: TargetKey) -> Int? {
        if adjusted.count > Self.linearScanLimit { return slotByKey[key] }
        let print = Self.fingerprint(key)
        for slot in fingerprints.indices where fingerprints[slot] == print && adjusted[slot] == key { return slot }
        return nil
    }

    /// Whether some adjusted target not yet met could still score >= `bar`
    /// (its probability is at most `probability`, the list being sorted).
    private func anyUnfoundCanReach(_ bar: Double, probability: Double, configuration: FusionConfiguration, stickiness: Double) -> Bool {
        for slot in adjusted.indices where !adjustedFound[slot] {
            var signals = adjustedSignals[slot]
            signals.probability = probability
            let bound = signals.score(configuration) * (sticky[slot] ? stickiness : 1)
            if bound >= bar { return true }
        }
        return false
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
