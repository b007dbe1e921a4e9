import Foundation
import LinearAlgebra
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
/// column per group that sums to one (x' is -1 there) and one per context key
/// (x' is -1 when the moment has a known value of that key). A softmax over targets turns
/// the scores into probabilities.
///
/// Forgetting is exact: counts are stored scaled by 2^(t/h - anchor) (h the
/// half-life), so adding and removing an event add and subtract the same
/// number, and the common decay factor to the reference day is applied when
/// L is built. The model keeps its event log so removing an event also fixes
/// the previous-target feature of the event after it. After removing events
/// B from a model of A+B, scores equal those of a model of A to within about
/// 1e-12 relative (rounding of the additions; see the removal test).
public struct ProfileModel: FittedModel {
    public let configuration: ProfileConfiguration
    public let encoder: MomentEncoder
    public var name: String { "profile" }

    /// The vocabulary; every target in it has at least one event.
    public internal(set) var space: FeatureSpace
    /// The learned events in canonical order.
    public internal(set) var log: EventLog
    /// Scaled counts, `targetCount` rows x `layout.dimension` columns, row-major.
    var counts: [Double]
    /// log-profile matrix, `targetCount` rows x `width` columns, row-major.
    var logProfile: [Double]
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
        counts = []
        logProfile = []
        eventCounts = []
        contextUses = []
        anchor = 0
        reference = 0
        decay = 1
        rebuildCounts()
    }

    /// Restores a model from its saved parts (used by deserialization).
    init(configuration: ProfileConfiguration, space: FeatureSpace, log: EventLog, counts: [Double], anchor: Double) {
        self.configuration = configuration
        encoder = MomentEncoder(configuration.encoder)
        self.space = space
        self.log = log
        self.counts = counts
        self.anchor = anchor
        logProfile = []
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
    /// time, weekday, weekend and previous groups, then one denominator per context key.
    var width: Int { layout.dimension + Self.fixedGroupCount + space.contextKeys.count }
    static let fixedGroupCount = 4
    var halfLifeSeconds: Double { (configuration.halfLifeDays ?? .infinity) * 86_400 }

    // MARK: Scoring

    /// The extended feature vector x' of a moment (features, then -1 per context key present).
    func scoringVector(for moment: Moment) -> [Double] {
        let layout = layout
        var x = [Double](repeating: 0, count: width)
        let previous = MomentEncoder.previous(of: moment, in: space) ?? log.latest(atOrBefore: moment.date)
        let columns = space.columns(for: moment.context)
        x.withUnsafeMutableBufferPointer { buffer in
            encoder.encode(date: moment.date, utcOffset: moment.utcOffset, contextColumns: columns,
                           previous: previous, layout: layout, into: buffer)
        }
        for g in 0 ..< Self.fixedGroupCount { x[layout.dimension + g] = -1 }
        let presentKeys = Set(columns.map { space.contextValue(at: $0).key })
        for (k, key) in space.contextKeys.enumerated() where presentKeys.contains(key) {
            x[layout.dimension + Self.fixedGroupCount + k] = -1
        }
        return x
    }

    /// Unnormalised log-scores of every target (index order) at `moment`: L · x'.
    ///
    /// x' is sparse whatever the number of targets: the previous-target block
    /// (one column per target) holds at most two non-zeros, so about 40 of its
    /// `width` entries are non-zero. Only those columns of L are read, which
    /// keeps the product O(targets x 40) instead of O(targets²) in time and
    /// memory traffic (a dense `dgemv` reads the whole targets x width matrix).
    public func logScores(at moment: Moment) -> [Double] {
        let x = scoringVector(for: moment)
        let rows = space.targetCount
        guard rows > 0 else { return [] }
        let columns = x.indices.filter { x[$0] != 0 }
        let values = columns.map { x[$0] }
        let width = width
        var scores = [Double](repeating: 0, count: rows)
        logProfile.withUnsafeBufferPointer { l in
            columns.withUnsafeBufferPointer { j in
                values.withUnsafeBufferPointer { v in
                    scores.withUnsafeMutableBufferPointer { y in
                        for t in 0 ..< rows {
                            let row = l.baseAddress! + t * width
                            var sum = 0.0
                            for k in 0 ..< j.count { sum += row[j[k]] * v[k] }
                            y[t] = sum
                        }
                    }
                }
            }
        }
        return scores
    }

    public func scores(at moment: Moment) -> [ScoredTarget] {
        Softmax.ranked(logScores: logScores(at: moment), targets: space.targets)
    }

    /// Scores many moments with one matrix-matrix product (`dgemm`); equal to
    /// `scores(at:)` per moment up to rounding (about 1e-12 relative).
    public func scores(at moments: [Moment]) -> [[ScoredTarget]] {
        Softmax.rankedBatch(vectors: moments.map { scoringVector(for: $0) }, weights: logProfile, columns: width, targets: space.targets)
    }
}
