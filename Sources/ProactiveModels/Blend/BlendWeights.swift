import Foundation
import LinearAlgebra

// MARK: - Blend features

/// The per-candidate signals the blend weighs. Each is a number per target at a
/// moment; the blend's score of a target is Σ weight_f · signal_f.
package enum BlendFeature: Int, CaseIterable, Sendable {
    /// The profile's log-score by group (`ProfileGroup`; the `absence` group is `profileAbsence`, last).
    case profilePrior, profileTime, profileDay, profileContext, profilePrevious
    case logistic
    case frecencyShort, frecencyLong
    /// log P(target | previous target) when the previous use is within the transition window / older.
    case transitionRecent, transitionStale
    /// The same when the previous use was 8 to 24 hours ago (overnight); older uses say nothing.
    case transitionOvernight
    /// One-hot position among the most recently used targets (0 = the last one), 8 = older or never.
    case rank0, rank1, rank2, rank3, rank4, rank5, rank6, rank7, rankOlder
    /// The target used just before the last one, within the transition window ("going back").
    case backToPrevious
    /// log(1 + minutes since the target's last use) / 10.
    case logAge
    /// The last used target again, by time since that use: <1 min, <5, <30, <2 h, <8 h, later.
    case repeat1m, repeat5m, repeat30m, repeat2h, repeat8h, repeatLater
    /// log of the target's recent use at this time of day (short half-life): a habit that just changed.
    case recentTimeOfDay
    /// log((recent use at this time + ½) / (usual use at this time, scaled to the recent half-life, + ½)):
    /// about 0 for a steady habit, positive for one just taken up, negative for one just dropped.
    /// Its starting weight is 3 (a prior belief that habits change), kept while history shows no change.
    case habitChange
    /// log of the target's share of its uses near this minute of the day at quarter-hour resolution
    /// (x 96, so 0 = spread evenly over the day): routines 30 minutes apart separate.
    case timeFine
    /// log of every use of the target (counts included), and of its donations (occasions): the two
    /// ways to count frequency, weighed against each other by the fitted weights.
    case frequencyUses, frequencyOccasions
    /// log P(target | the context of the moment) from the user's counts over nested contexts, each
    /// smoothed toward the next coarser one (`RoutineSignal`): what followed the previous target within
    /// the transition window on this day type, then this day type at this quarter hour, then this day
    /// type, then the user's frequency. It expresses interactions the other signals, added independently,
    /// cannot: "after weather, on weekdays, comes coffee", and nothing of the kind on weekends.
    case routine
    /// log of the target's rate of use in the coming hour at this minute of any day, given whether it
    /// was used earlier today (`HabitRateSignal.rates`, every-day family): a workout whose time has
    /// passed has a low rate, an app used at no fixed time a flat one.
    case habitRate
    /// log(calendar rate) − log(every-day rate) (`HabitRateSignal.rates`): what the day of the month, the
    /// week's parity or the weekday add to the target's rate now; 0 for a target used alike every day, so
    /// only rows of calendar habits move its weight, however rare they are among the user's rows. Both start
    /// from weight 0 (`defaultWeights`): the population's pooled fit and each user's fit decide.
    case calendarLift
    /// The profile's `absence` group: what no value of a state key says (no Focus: log P(no Focus |
    /// target)), weighed apart from the context values a moment has. Last in feature order, so for a user
    /// with no Focus in any donation (a signal of 0) every other term is laid out and summed exactly as in
    /// a blend without it.
    case profileAbsence

    package static let count = allCases.count

    /// The feature of each profile group, in `ProfileGroup` order.
    package static let profileGroups: [BlendFeature] = [.profilePrior, .profileTime, .profileDay, .profileContext,
                                                         .profilePrevious, .profileAbsence]

    /// Starting weights of every fit, and what the population's pooled fit is pulled toward: the
    /// plain naive-Bayes profile, plus the habit-change and routine signals.
    package static var defaultWeights: [Double] {
        allCases.map { feature in
            switch feature {
            case .profilePrior, .profileTime, .profileDay, .profileContext, .profilePrevious, .profileAbsence: return 1
            case .habitChange: return 3
            case .routine: return 1
            default: return 0
            }
        }
    }

    /// The fixed prior of a user alone, and the guard's "profile" simple model: the plain naive-Bayes
    /// profile plus the habit-change signal (`defaultWeights` without the routine signal). A user with
    /// too few rows to fit uses it as it is (or the simple model that scores its rows better), so it
    /// must not count one piece of evidence twice: the routine signal estimates the profile's
    /// frequency, day and time of day again from the same uses, and with both, a launch a second after
    /// X ranked X itself first (its own use of a second ago counted twice) above what followed X. The
    /// guard still compares the routine signal alone, and a user's fit weighs it as the rows say.
    package static var plainProfileWeights: [Double] {
        var weights = defaultWeights
        weights[routine.rawValue] = 0
        return weights
    }

    /// The repeat bucket of a gap in seconds.
    static func repeatBucket(gap: Double) -> BlendFeature {
        switch gap {
        case ..<60: return .repeat1m
        case ..<300: return .repeat5m
        case ..<1800: return .repeat30m
        case ..<7200: return .repeat2h
        case ..<28_800: return .repeat8h
        default: return .repeatLater
        }
    }
}

// MARK: - Rows

/// Past events with the candidate signals they were scored with (before being
/// learned), kept to fit the blend weights by maximum likelihood.
struct BlendRows: Sendable, Equatable {
    /// Per row: candidates x `BlendFeature.count` values, concatenated.
    private(set) var values: [Float] = []
    private(set) var candidateCounts: [Int] = []
    private(set) var labels: [Int] = []

    init() {}

    init(values: [Float], candidateCounts: [Int], labels: [Int]) {
        self.values = values
        self.candidateCounts = candidateCounts
        self.labels = labels
    }

    var count: Int { labels.count }

    /// The most candidates a row keeps: a user with more targets keeps, per row, the label and the
    /// `maxCandidates - 1` others the weights at that time scored highest. Those carry nearly all
    /// of the softmax's mass, so the fit hardly changes, while a row's size (and the weight fit's
    /// work) stays bounded by `maxCandidates`, however many targets the user has.
    static let maxCandidates = 64

    /// Appends a row (candidates x `BlendFeature.count` features, `label` the chosen one), cut to
    /// `maxCandidates` by `weights` when it has more. When there are more than `maxRows` rows or
    /// `maxValues` values, the oldest rows are dropped in one block down to three quarters of the
    /// limits, so appending is amortised O(row) rather than a shift of every stored value each time.
    mutating func append(features: [Double], candidates: Int, label: Int, weights: [Double], maxRows: Int, maxValues: Int) {
        let width = BlendFeature.count
        if candidates > Self.maxCandidates {
            let scores = (0 ..< candidates).map { c in (0 ..< width).reduce(0.0) { $0 + weights[$1] * features[c * width + $1] } }
            var others = Array((0 ..< candidates).filter { $0 != label })
            others.sort { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
            let kept = (others.prefix(Self.maxCandidates - 1) + [label]).sorted()
            values.reserveCapacity(values.count + kept.count * width)
            for c in kept { values.append(contentsOf: features[c * width ..< (c + 1) * width].map(Float.init)) }
            candidateCounts.append(kept.count)
            labels.append(kept.firstIndex(of: label)!)
        } else {
            values.append(contentsOf: features.map(Float.init))
            candidateCounts.append(candidates)
            labels.append(label)
        }
        guard labels.count > maxRows || values.count > maxValues else { return }
        let rowTarget = max(1, maxRows * 3 / 4)
        let valueTarget = max(1, maxValues * 3 / 4)
        var excessRows = 0
        var excessValues = 0
        while labels.count - excessRows > rowTarget || values.count - excessValues > valueTarget {
            guard labels.count - excessRows > 1 else { break }
            excessValues += candidateCounts[excessRows] * BlendFeature.count
            excessRows += 1
        }
        values.removeFirst(excessValues)
        candidateCounts.removeFirst(excessRows)
        labels.removeFirst(excessRows)
    }

    mutating func removeAll() { self = BlendRows() }

    /// 2^(−(rows after it) / halfLife) per row (all 1 without a half-life).
    static func recencyWeights(count: Int, halfLife: Double?) -> [Double] {
        (0 ..< count).map { row in halfLife.map { Foundation.exp2(-Double(count - 1 - row) / $0) } ?? 1 }
    }

    /// The rows in `range` (in order).
    func slice(_ range: Range<Int>) -> BlendRows {
        let features = BlendFeature.count
        let start = candidateCounts[..<range.lowerBound].reduce(0, +) * features
        let length = candidateCounts[range].reduce(0, +) * features
        return BlendRows(values: Array(values[start ..< start + length]), candidateCounts: Array(candidateCounts[range]),
                         labels: Array(labels[range]))
    }

    /// The rows at `indices` (increasing), in order.
    func select(_ indices: [Int]) -> BlendRows {
        let features = BlendFeature.count
        var starts = [Int](repeating: 0, count: count + 1)
        for row in 0 ..< count { starts[row + 1] = starts[row] + candidateCounts[row] * features }
        var picked = BlendRows()
        for row in indices {
            picked.values.append(contentsOf: values[starts[row] ..< starts[row + 1]])
            picked.candidateCounts.append(candidateCounts[row])
            picked.labels.append(labels[row])
        }
        return picked
    }

    /// The last `count` rows (all of them when there are fewer).
    func suffix(_ count: Int) -> BlendRows {
        slice(max(0, self.count - count) ..< self.count)
    }

    /// Appends every row of `other` (pooling users' rows; no limits apply).
    mutating func append(contentsOf other: BlendRows) {
        values += other.values
        candidateCounts += other.candidateCounts
        labels += other.labels
    }

    /// Reserves room for `rows` more rows holding `values` more values (pooling without regrowth).
    mutating func reserveCapacity(rows: Int, values count: Int) {
        values.reserveCapacity(values.count + count)
        candidateCounts.reserveCapacity(candidateCounts.count + rows)
        labels.reserveCapacity(labels.count + rows)
    }

    /// Every row of `ranges` (nil: every row) in order, with its position among them and the offset of its first value.
    /// - Precondition: the ranges are in increasing order and do not overlap.
    private func forEachRow(in ranges: [Range<Int>]?, _ body: (_ position: Int, _ row: Int, _ offset: Int) -> Void) {
        let features = BlendFeature.count
        var (position, row, offset) = (0, 0, 0)
        for range in ranges ?? [0 ..< count] {
            precondition(range.lowerBound >= row, "row ranges must be in order")
            for skipped in row ..< range.lowerBound { offset += candidateCounts[skipped] * features }
            for current in range {
                body(position, current, offset)
                position += 1
                offset += candidateCounts[current] * features
            }
            row = range.upperBound
        }
    }

    /// Rows in `ranges` (nil: every row).
    private func rowCount(in ranges: [Range<Int>]?) -> Int {
        ranges.map { $0.reduce(0) { $0 + $1.count } } ?? count
    }

    /// Per row (of `ranges`, in order; nil: every row): the log-probability of its label and the label's
    /// rank (1 = first; ties count against it) under `weights`.
    func evaluate(weights: [Double], ranges: [Range<Int>]? = nil) -> [(logLikelihood: Double, rank: Int)] {
        let features = BlendFeature.count
        var results: [(logLikelihood: Double, rank: Int)] = []
        results.reserveCapacity(rowCount(in: ranges))
        forEachRow(in: ranges) { _, row, offset in
            let candidates = candidateCounts[row]
            var scores = [Double](repeating: 0, count: candidates)
            for c in 0 ..< candidates {
                var score = 0.0
                for f in 0 ..< features { score += weights[f] * Double(values[offset + c * features + f]) }
                scores[c] = score
            }
            let label = labels[row]
            let normaliser = Softmax.logSumExp(scores)
            results.append((scores[label] - normaliser, 1 + scores.indices.filter { $0 != label && scores[$0] >= scores[label] }.count))
        }
        return results
    }

    // MARK: Fitting

    /// Weights maximising Σ_rows r_row · log softmax(F_row · w)[label] − (λ/2)‖w − w₀‖², by L-BFGS from
    /// `start`, where r_row = 2^(−(rows after it) / `rowHalfLife`) (1 for every row when `nil`): recent
    /// rows count more, so a changed habit moves the weights within a few refits.
    /// Each row costs two `sgemv` (scores F·w, expected signals Fᵀ·p). Returns `start` when there are no rows.
    /// - Parameters:
    ///   - explicitWeights: per-row weights (of the selected rows) to use instead of the half-life's (pooled rows of many users).
    ///   - ranges: the rows to fit on, in order (nil: every row), so parts of pooled rows need no copy.
    func fitWeights(start: [Double], prior: [Double], l2: Double, rowHalfLife: Double? = nil, explicitWeights: [Double]? = nil,
                    ranges: [Range<Int>]? = nil) -> [Double] {
        let selected = rowCount(in: ranges)
        guard selected > 0 else { return start }
        let rowWeights = explicitWeights ?? Self.recencyWeights(count: selected, halfLife: rowHalfLife)
        let features = BlendFeature.count
        let largest = candidateCounts.max() ?? 0
        // Scratch for every row of every iteration, allocated once; the loops below read and write it through
        // pointers (the same operations in the same order as indexing the arrays, without a uniqueness and a
        // bounds check per element).
        let weights = UnsafeMutableBufferPointer<Float>.allocate(capacity: features)
        let scores = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(largest, 1))
        let expected = UnsafeMutableBufferPointer<Float>.allocate(capacity: features)
        defer {
            weights.deallocate()
            scores.deallocate()
            expected.deallocate()
        }
        weights.initialize(repeating: 0)
        scores.initialize(repeating: 0)
        expected.initialize(repeating: 0)
        let result = LBFGS(maxIterations: 60, gradientTolerance: 1e-5).minimize(start: start) { w, gradient in
            var loss = 0.0
            for f in 0 ..< features {
                let d = w[f] - prior[f]
                loss += 0.5 * l2 * d * d
                gradient[f] = l2 * d
                weights[f] = Float(w[f])
            }
            values.withUnsafeBufferPointer { all in
                rowWeights.withUnsafeBufferPointer { rowWeights in
                    gradient.withUnsafeMutableBufferPointer { gradient in
                        forEachRow(in: ranges) { position, row, offset in
                            let candidates = candidateCounts[row]
                            let block = UnsafeBufferPointer(rebasing: all[offset ..< offset + candidates * features])
                            BLASKernels.sgemv(rows: candidates, columns: features, a: block, x: UnsafeBufferPointer(weights), y: scores)
                            var maximum = -Float.infinity
                            for c in 0 ..< candidates { maximum = max(maximum, scores[c]) }
                            var total: Float = 0
                            for c in 0 ..< candidates {
                                scores[c] = Foundation.exp(scores[c] - maximum)
                                total += scores[c]
                            }
                            let label = labels[row]
                            let rowWeight = rowWeights[position]
                            loss -= rowWeight * Double(Foundation.log(scores[label] / total))
                            for c in 0 ..< candidates { scores[c] /= total }
                            BLASKernels.sgemv(rows: candidates, columns: features, a: block, x: UnsafeBufferPointer(scores), y: expected,
                                              transpose: true)
                            let labelBase = offset + label * features
                            for f in 0 ..< features { gradient[f] += rowWeight * Double(expected[f] - all[labelBase + f]) }
                        }
                    }
                }
            }
            return loss
        }
        return result.x
    }
}
