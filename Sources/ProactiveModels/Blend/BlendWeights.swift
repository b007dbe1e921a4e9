import Foundation

// MARK: - Blend features

/// The per-candidate signals the blend weighs. Each is a number per target at a
/// moment; the blend's score of a target is Σ weight_f · signal_f.
public enum BlendFeature: Int, CaseIterable, Sendable {
    case profilePrior, profileTime, profileDay, profileContext, profilePrevious
    case logistic
    case frecencyShort, frecencyLong
    /// log P(target | previous target) when the previous use is within the transition window / older.
    case transitionRecent, transitionStale
    /// One-hot position among the most recently used targets (0 = the last one), 8 = older or never.
    case rank0, rank1, rank2, rank3, rank4, rank5, rank6, rank7, rankOlder
    /// The target used just before the last one, within the transition window ("going back").
    case backToPrevious
    /// log(1 + minutes since the target's last use) / 10.
    case logAge
    /// The last used target again, by time since that use: <1 min, <5, <30, <2 h, <8 h, later.
    case repeat1m, repeat5m, repeat30m, repeat2h, repeat8h, repeatLater

    public static let count = allCases.count

    /// Starting weights, and what the fitted weights are pulled toward: the
    /// plain naive-Bayes profile.
    public static var defaultWeights: [Double] {
        allCases.map { feature in
            switch feature {
            case .profilePrior, .profileTime, .profileDay, .profileContext, .profilePrevious: return 1
            default: return 0
            }
        }
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
public struct BlendRows: Sendable, Equatable {
    /// Per row: candidates x `BlendFeature.count` values, concatenated.
    public private(set) var values: [Float] = []
    public private(set) var candidateCounts: [Int] = []
    public private(set) var labels: [Int] = []

    public init() {}

    init(values: [Float], candidateCounts: [Int], labels: [Int]) {
        self.values = values
        self.candidateCounts = candidateCounts
        self.labels = labels
    }

    public var count: Int { labels.count }

    /// Appends a row, then drops the oldest rows beyond `maxRows` rows or `maxValues` values.
    mutating func append(features: [Double], candidates: Int, label: Int, maxRows: Int, maxValues: Int) {
        values.append(contentsOf: features.map(Float.init))
        candidateCounts.append(candidates)
        labels.append(label)
        var excessRows = 0
        var excessValues = 0
        while labels.count - excessRows > maxRows || values.count - excessValues > maxValues {
            guard labels.count - excessRows > 1 else { break }
            excessValues += candidateCounts[excessRows] * BlendFeature.count
            excessRows += 1
        }
        if excessRows > 0 {
            values.removeFirst(excessValues)
            candidateCounts.removeFirst(excessRows)
            labels.removeFirst(excessRows)
        }
    }

    mutating func removeAll() { self = BlendRows() }

    // MARK: Fitting

    /// Weights maximising Σ_rows log softmax(F_row · w)[label] − (λ/2)‖w − w₀‖², by L-BFGS from `start`.
    /// Returns `start` unchanged when there are no rows.
    func fitWeights(start: [Double], prior: [Double], l2: Double) -> [Double] {
        guard !labels.isEmpty else { return start }
        let features = BlendFeature.count
        let result = LBFGS(maxIterations: 100, gradientTolerance: 1e-6).minimize(start: start) { w, gradient in
            var loss = 0.0
            for f in 0 ..< features {
                let d = w[f] - prior[f]
                loss += 0.5 * l2 * d * d
                gradient[f] = l2 * d
            }
            var offset = 0
            var scores: [Double] = []
            var expected = [Double](repeating: 0, count: features)
            for (row, candidates) in candidateCounts.enumerated() {
                scores.removeAll(keepingCapacity: true)
                for c in 0 ..< candidates {
                    var s = 0.0
                    let base = offset + c * features
                    for f in 0 ..< features { s += w[f] * Double(values[base + f]) }
                    scores.append(s)
                }
                let normaliser = Softmax.logSumExp(scores)
                let label = labels[row]
                loss -= scores[label] - normaliser
                for f in 0 ..< features { expected[f] = 0 }
                for c in 0 ..< candidates {
                    let p = Foundation.exp(scores[c] - normaliser)
                    let base = offset + c * features
                    for f in 0 ..< features { expected[f] += p * Double(values[base + f]) }
                }
                let labelBase = offset + label * features
                for f in 0 ..< features { gradient[f] += expected[f] - Double(values[labelBase + f]) }
                offset += candidates * features
            }
            return loss
        }
        return result.x
    }
}
