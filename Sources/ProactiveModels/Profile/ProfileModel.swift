import Foundation
import ProactiveCore

// MARK: - Profile model

/// Naive-Bayes-like model: each target's history as decayed counts over the
/// feature buckets (time-of-day kernels, weekday, weekend, context values,
/// previous target), scored by one matrix-vector product.
///
/// With N[t, j] the decayed count of bucket j for target t and G(t, g) its
/// total over feature group g, the log-score of target t for a moment x is
///
///     log(n_t + β) + Σ_g Σ_{j ∈ g} x_j · log((N[t, j] + α) / (G(t, g) + α·|g|))
///
/// computed as `L · x'` (over the non-zero entries of x'), where the log-profile matrix L holds
/// log(N + α) per bucket, the log prior in the bias column, one denominator
/// column per group that sums to one (x' is -1 there) and two per context key.
/// A context key is one more group whose values are the key's values and, for a key
/// that states a device state (`stateKeys`: no Focus is a state too) once some learned
/// event had no value of it, "absent": a target used 40 times, 30 of them in
/// `focus=work`, scores log((30 + α)/(40 + 2α)) at a moment in `focus=work` (the key has
/// one value, and "absent") and log((10 + α)/(40 + 2α)) at a moment with no `focus`: a
/// moment's context is read as a donation's (the engine fills both from the Focus timeline).
/// So the key's denominator column holds log(n_t + α·(its values)) (log(uses with a value
/// of the key + α·(its values)) while "absent" is none of them; x' is -1 when the moment
/// has one of them), and its "absent" column log(n_t - uses with a value of the key + α)
/// (x' is 1 when the moment has no value of the key and "absent" is one of its values).
/// A value the space has never seen, "absent" included, leaves the key out, as a key the
/// moment's context has and no event had. A softmax over targets turns the scores into
/// probabilities.
///
/// Forgetting is exact: counts are stored scaled by 2^(t/h - anchor) (h the
/// half-life), so adding and removing an event add and subtract the same
/// number, and the common decay factor to the reference day is applied when
/// L is built. The model keeps its event log so removing an event also fixes
/// the previous-target feature of the event after it. After removing events
/// B from a model of A+B, scores equal those of a model of A to within about
/// 1e-12 relative (rounding of the additions; see the removal test).
public struct ProfileModel: FittedModel {
    package let configuration: ProfileConfiguration
    package let encoder: MomentEncoder
    public var name: String { "profile" }

    /// The vocabulary; every target in it has at least one event.
    public internal(set) var space: FeatureSpace
    /// The learned events in canonical order.
    package internal(set) var log: EventLog
    /// Scaled counts, `targetCount` rows x `layout.dimension` columns, the previous-target block sparse.
    var counts: SparseBlockMatrix
    /// The log-profile matrix L, `targetCount` rows x `width` logical columns
    /// (stored as a compact dense part plus a transition block, see `LogProfileMatrix`).
    var logProfile: LogProfileMatrix
    var eventCounts: [Int]
    var contextUses: [Int]
    /// Stored counts are scaled by 2^(time/halfLife - anchor); anchor is a whole number.
    var anchor: Double
    /// The decay reference time (start of the UTC day of the latest event) and its factor.
    var reference: Double
    var decay: Double

    // MARK: Construction

    /// Fits on `events` (any order). Prefer `ProfileTrainer.fit`, which validates the configuration.
    public init(configuration: ProfileConfiguration, events: [Event]) {
        self.configuration = configuration
        encoder = MomentEncoder(configuration.encoder)
        space = FeatureSpace(events: events)
        let logged = events.map { [space] in space.loggedEvent(for: $0)! }
        log = EventLog(events: logged, space: space)
        counts = SparseBlockMatrix(layout: FeatureLayout(timeKernels: 0, contextCount: 0, targetCount: 0))
        logProfile = LogProfileMatrix(layout: FeatureLayout(timeKernels: 0, contextCount: 0, targetCount: 0), extraColumns: 0)
        eventCounts = []
        contextUses = []
        anchor = 0
        reference = 0
        decay = 1
        rebuildCounts()
    }

    /// Restores a model from its saved parts (used by deserialization).
    init(configuration: ProfileConfiguration, space: FeatureSpace, log: EventLog, counts: SparseBlockMatrix, anchor: Double) {
        self.configuration = configuration
        encoder = MomentEncoder(configuration.encoder)
        self.space = space
        self.log = log
        self.counts = counts
        self.anchor = anchor
        logProfile = LogProfileMatrix(layout: FeatureLayout(timeKernels: 0, contextCount: 0, targetCount: 0), extraColumns: 0)
        eventCounts = []
        contextUses = []
        reference = 0
        decay = 1
        recountUses()
        refreshAll()
    }

    // MARK: Shape

    public var layout: FeatureLayout { encoder.layout(for: space) }
    /// Columns of the log-profile matrix: the feature vector, the denominators of the
    /// time, weekday, weekend and previous groups, one denominator per context key, then
    /// one "absent" column per context key (`keyColumns(key:)`).
    var width: Int { layout.dimension + extraColumnCount }
    /// The columns of L after the feature vector (see `width`).
    var extraColumnCount: Int { Self.fixedGroupCount + 2 * space.contextKeys.count }
    static let fixedGroupCount = 4

    /// The logical columns of L of the context key at `position` in `space.contextKeys`: its
    /// denominator and its "absent" column.
    func keyColumns(key position: Int) -> (denominator: Int, absent: Int) {
        let first = layout.dimension + Self.fixedGroupCount
        return (first + position, first + space.contextKeys.count + position)
    }

    /// The context keys whose absence is itself a value: each states a device state, known at
    /// every donation and question (the Focus timeline fills `focus` in both when the caller does
    /// not state it), so no value means the state is off: no Focus. Any other key (`place`,
    /// `weather`) is stated by apps when they know it, and a moment without it says nothing.
    static let stateKeys: Set<String> = ["focus"]

    /// Whether "absent" is one of the values of the context key at `position` in
    /// `space.contextKeys`: a key of `stateKeys` of which some learned event had no value.
    func absenceIsAValue(ofKey position: Int) -> Bool {
        let key = space.contextKeys[position]
        guard Self.stateKeys.contains(key) else { return false }
        var withValue = 0
        for column in space.columnsByKey[key] ?? [] { withValue += contextUses[column.rawValue] }
        return log.count > withValue
    }

    /// The context keys of which "absent" is a value (`absenceIsAValue(ofKey:)`): when learning or forgetting
    /// an event changes them, every row's denominator of the keys concerned changes.
    var keysWithAbsentValue: Set<String> {
        Set(space.contextKeys.indices.filter(absenceIsAValue(ofKey:)).map { space.contextKeys[$0] })
    }

    /// Whether `moment` reads the "absent" value of the context key at `position`: it has no value of the key,
    /// and "absent" is one of the key's values.
    func readsAbsence(ofKey position: Int, at moment: Moment) -> Bool {
        moment.context[space.contextKeys[position]] == nil && absenceIsAValue(ofKey: position)
    }
    var halfLifeSeconds: Double { (configuration.halfLifeDays ?? .infinity) * 86_400 }

    // MARK: Scoring

    /// A moment as the scoring product reads it: the dense part of x' (in
    /// `LogProfileMatrix.denseColumns` order: features before the previous-target
    /// block, "no previous", -1 per group denominator, then per context key -1 for its
    /// denominator and 1 for "absent" when the moment has no value of it and some event had none)
    /// and the previous target's weight, if any.
    struct ScoringInput {
        var dense: [Double]
        var previous: LogProfileMatrix.PreviousTarget?
    }

    /// The scoring input of a moment. - Complexity: O(time kernels + context), not O(targets).
    func scoringInput(for moment: Moment) -> ScoringInput {
        let width = logProfile.denseWidth
        var previous: LogProfileMatrix.PreviousTarget?
        let dense = [Double](unsafeUninitializedCapacity: width) { buffer, count in
            previous = writeScoringInput(for: moment, into: UnsafeMutableBufferPointer(rebasing: buffer[..<width]))
            count = width
        }
        return ScoringInput(dense: dense, previous: previous)
    }

    /// Writes the dense part of a moment's x' into `dense` (`logProfile.denseWidth` values, every
    /// one written) and returns its previous target, if any (see `ScoringInput`).
    func writeScoringInput(for moment: Moment, into dense: UnsafeMutableBufferPointer<Double>) -> LogProfileMatrix.PreviousTarget? {
        let layout = layout
        let leading = layout.previous.lowerBound
        let previous = MomentEncoder.previous(of: moment, in: space) ?? log.latest(atOrBefore: moment.date)
        let columns = space.columns(for: moment.context)
        encoder.encodeLeading(date: moment.date, utcOffset: moment.utcOffset, contextColumns: columns, layout: layout, into: dense)
        for p in leading ..< dense.count { dense[p] = 0 }
        let weight = encoder.weight(of: previous, at: moment.date, layout: layout)
        dense[leading] = 1 - weight
        for g in 0 ..< Self.fixedGroupCount { dense[leading + 1 + g] = -1 }
        // Per context key: a known value reads its column (above) over the key's denominator; no value
        // reads "absent" over it once some event had no value; an unseen value leaves the key out.
        let keys = space.contextKeys.count
        let denominators = leading + 1 + Self.fixedGroupCount
        for k in 0 ..< keys where readsAbsence(ofKey: k, at: moment) {
            dense[denominators + k] = -1
            dense[denominators + keys + k] = 1
        }
        for column in columns { dense[denominators + space.keyPositions[column.rawValue]] = -1 }
        return previous.flatMap { weight > 0 ? ($0.target.rawValue, weight) : nil }
    }

    /// The extended feature vector x' of a moment (`width` values: features, then the group
    /// and context-key columns as in `ScoringInput`), for per-column inspection.
    func scoringVector(for moment: Moment) -> [Double] {
        let input = scoringInput(for: moment)
        var x = [Double](repeating: 0, count: width)
        for (p, j) in logProfile.denseColumns.enumerated() { x[j] = input.dense[p] }
        if let (target, weight) = input.previous { x[logProfile.previousColumns.lowerBound + target] = weight }
        return x
    }

    /// Unnormalised log-scores of every target (index order) at `moment`: L · x'.
    ///
    /// x' is dense only outside the previous-target block, which holds at most
    /// one non-zero, and even there a moment has one weekday, one weekend column
    /// and only its own context values. So the product is one pass over the
    /// targets summing the columns of L whose weight is not zero (about 36 of
    /// the compact part's 48 columns, plus one contiguous row of the transition
    /// block): O(targets x 40) time and memory traffic, where a dense product
    /// would read the whole targets x (targets + 60) matrix.
    public func logScores(at moment: Moment) -> [Double] {
        let width = logProfile.denseWidth
        // The moment's vector on the stack: one allocation per call, the scores.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: width) { buffer in
            let dense = UnsafeMutableBufferPointer(rebasing: buffer[..<width])
            let previous = writeScoringInput(for: moment, into: dense)
            return [Double](unsafeUninitializedCapacity: space.targetCount) { y, count in
                logProfile.multiply(weights: UnsafeBufferPointer(dense), positions: 0 ..< width, previous: previous, into: y)
                count = space.targetCount
            }
        }
    }

    /// Every target's probability at `moment`, in index order (no sorting).
    public func distribution(at moment: Moment) -> TargetDistribution {
        Softmax.distribution(logScores: logScores(at: moment), space: space)
    }

    public func scores(at moment: Moment) -> [ScoredTarget] {
        distribution(at: moment).ranked()
    }
}
