import Foundation

// MARK: - The guard against overfitting

/// How a user's blend weights were chosen, and how every later refit combines them:
///
///     w = share · fit(rows; pulled toward `center`) + (1 − share) · anchor
///
/// `center` is what the fit is pulled toward (L2): the population's weights, learned
/// across every user of the store, or the fixed defaults for a user alone. The guard
/// holds out the most recent `validationShare` of the user's rows (time order), fits on
/// the rest, and scores on the held-out rows the prior, each simple model the weights can
/// express (`simpleModels`: most frequently used counting uses or donations, frecency,
/// previous-target Markov, most recently used, the routine counts alone, the plain profile) and mixes of the user's fit with the anchor.
/// A candidate replaces the one it challenges only when its held-out log-likelihood is
/// higher by `margin` standard errors (paired over rows):
///
/// - with a population prior, the prior holds; a simple model that beats it becomes the
///   anchor, and the user's fit gets a share that grows with the evidence that it beats the anchor
///   (`evidenceShare`: 0 up to 1 standard error, 1 from 3, in between in proportion), so a few more
///   rows move the kept weights a little, never from the anchor to the fit at once;
/// - with the fixed prior, the user's fit holds whole; a simple model that beats it becomes
///   the anchor and the fit keeps the share (¾, ½, ¼) with the largest gain over that model, or none.
///
/// A component that does not earn its weight on held-out rows is shrunk toward the simpler
/// model; users with fewer than `guardMinimumRows` rows keep the prior as it is.
public struct WeightGuard: Sendable, Equatable {
    package var center: [Double]
    /// "population (N users)" or "fixed".
    public var centerName: String
    public var anchor: [Double]
    public var anchorName: String
    public var share: Double
    /// Held-out rows the choice was made on (0: too few rows, no guard).
    public var heldOutRows: Int
    /// Which rows were held out (`Holdout`); `.latest` for a user with too few rows to hold any out.
    public var holdout: Holdout = .latest
    /// Rows the user had when the guard chose.
    public var rowsAtChoice: Int
    /// Mean held-out log-likelihood and mean reciprocal rank of each candidate, by name
    /// ("fit" is the user's own fit, "chosen" the mix kept).
    public var validation: [Candidate]

    public struct Candidate: Sendable, Equatable {
        package var name: String
        package var logLikelihood: Double
        package var meanReciprocalRank: Double
    }

    /// No guard: the fit pulled toward `center`, kept whole (models saved before the guard, and tests).
    package static func unguarded(center: [Double], centerName: String) -> WeightGuard {
        WeightGuard(center: center, centerName: centerName, anchor: center, anchorName: centerName, share: 1, heldOutRows: 0,
                    rowsAtChoice: 0, validation: [])
    }

    /// The weights kept for a fit.
    public func combine(_ fitted: [Double]) -> [Double] {
        zip(fitted, anchor).map { share * $0 + (1 - share) * $1 }
    }

    /// Whether the kept weights depend on the user's fit (a share above 0); with share 0 they are the anchor's.
    package var keepsFit: Bool { share > 0 }

    /// The fit that `combine` turned into `kept` (its inverse): `kept` itself for share 1, nil for share 0
    /// (the anchor alone says nothing of the fit).
    public func fitted(from kept: [Double]) -> [Double]? {
        guard keepsFit else { return nil }
        guard share < 1 else { return kept }
        return zip(kept, anchor).map { ($0 - (1 - share) * $1) / share }
    }

    static let shares: [Double] = [1, 0.75, 0.5, 0.25, 0]

    /// The share of the user's fit kept over the anchor when the fit's mean held-out log-likelihood gain
    /// over it is `z` standard errors (paired over rows): a ramp `shareRamp` standard errors wide centred
    /// on `margin`, the evidence a simple model needs to replace the prior.
    ///
    ///     evidenceShare(z: 1)    // 0
    ///     evidenceShare(z: 2.5)  // 0.75
    ///     evidenceShare(z: 3)    // 1
    static func evidenceShare(z: Double) -> Double {
        guard z.isFinite else { return z > 0 ? 1 : 0 }
        return min(1, max(0, (z - margin) / shareRamp + 0.5))
    }

    /// Width (standard errors) of the ramp from no share of the fit to all of it (`evidenceShare`).
    static let shareRamp = 2.0

    /// Which of a user's rows the guard holds out. A stream (launches in time order) holds out its most
    /// recent rows: the future is what the weights must predict. A log whose rows have no real order
    /// (aggregated counts dated at a few instants, many rows sharing one) holds out rows spread at random
    /// (a fixed seed): its "most recent" rows are an artefact of how rows at one instant were sorted.
    public enum Holdout: String, Sendable, Equatable {
        case latest = "latest"
        case spread = "random"

        /// `.spread` when at least half of the events (by their `dates`) share their instant with another, else `.latest`.
        static func fitting(dates: some Sequence<Date>) -> Holdout {
            var counts: [Date: Int] = [:]
            for date in dates { counts[date, default: 0] += 1 }
            let total = counts.values.reduce(0, +)
            let shared = counts.values.reduce(0) { $0 + ($1 > 1 ? $1 : 0) }
            return total > 1 && shared * 2 >= total ? .spread : .latest
        }

        /// The held-out row indices (increasing) of `count` rows, `share` of them.
        func heldOut(count: Int, share: Double) -> [Int] {
            let fitted = max(1, Int((Double(count) * (1 - share)).rounded(.down)))
            guard fitted < count else { return [] }
            switch self {
            case .latest: return Array(fitted ..< count)
            case .spread:
                var random = SeededGenerator(seed: UInt64(count))
                return Array((0 ..< count).shuffled(using: &random).prefix(count - fitted)).sorted()
            }
        }
    }

    /// The simple models a weight vector can express (one signal each, or the plain profile).
    static func simpleModels(center: [Double], centerName: String) -> [(name: String, weights: [Double])] {
        func only(_ pairs: [(BlendFeature, Double)]) -> [Double] {
            var weights = [Double](repeating: 0, count: BlendFeature.count)
            for (feature, value) in pairs { weights[feature.rawValue] = value }
            return weights
        }
        var models: [(name: String, weights: [Double])] = [
            ("mfu", only([(.frequencyUses, 1)])),
            ("mfu-occasions", only([(.frequencyOccasions, 1)])),
            ("frecency", only([(.frecencyLong, 1)])),
            ("markov", only([(.transitionRecent, 1), (.transitionStale, 1), (.transitionOvernight, 1), (.frequencyUses, 0.25)])),
            ("mru", mostRecentlyUsed),
            ("routine", only([(.routine, 1)])),
            ("profile", BlendFeature.plainProfileWeights),
        ]
        if center != BlendFeature.defaultWeights { models.append((centerName, center)) }
        return models
    }

    /// Most recently used as the weights express it: the target at recency position k (0 = the last
    /// one) scores −ln(k + 1), as the `mru` baseline's harmonic 1 / (k + 1); older targets score −ln 9
    /// and are ordered by the time since their last use (`logAge`, a small weight, which keeps the
    /// order of the 8 most recent).
    static let mostRecentlyUsed: [Double] = {
        var weights = [Double](repeating: 0, count: BlendFeature.count)
        for position in 0 ..< 8 { weights[BlendFeature.rank0.rawValue + position] = -Foundation.log(Double(position + 1)) }
        weights[BlendFeature.rankOlder.rawValue] = -Foundation.log(9)
        weights[BlendFeature.logAge.rawValue] = -0.1
        return weights
    }()

    /// How many standard errors a candidate's mean held-out log-likelihood must gain over the
    /// model it would replace (paired, row by row) before it replaces it.
    static let margin = 2.0

    /// Chooses the guard for a user's rows (see the type's description); `fit` fits weights on
    /// rows pulled toward `center`. The prior is the default; a simple model replaces it as the
    /// anchor, and the user's own fit earns a share, only when better on the held-out rows by
    /// `margin` standard errors: a handful of held-out rows cannot move a user off the prior by chance.
    /// - Parameter trustPrior: true for a population prior (learned from many users' rows), which a
    ///   user leaves only on evidence; false for the fixed defaults, which the user's fit replaces.
    static func choose(rows: BlendRows, center: [Double], centerName: String, trustPrior: Bool, configuration: BlendConfiguration,
                       holdout: Holdout = .latest, fit: (BlendRows) -> [Double]) -> WeightGuard {
        let count = rows.count
        let prior = WeightGuard(center: center, centerName: centerName, anchor: center, anchorName: centerName, share: 0,
                                heldOutRows: 0, rowsAtChoice: rows.count, validation: [])
        guard count >= configuration.guardMinimumRows else {
            return count >= 2 ? chooseFixed(rows: rows, center: center, centerName: centerName, trustPrior: trustPrior) : prior
        }
        let heldOutIndices = holdout.heldOut(count: count, share: configuration.validationShare)
        guard !heldOutIndices.isEmpty else { return prior }
        let heldOut = holdout == .latest ? rows.slice(heldOutIndices[0] ..< count) : rows.select(heldOutIndices)
        let heldOutSet = Set(heldOutIndices)
        let fitted = fit(holdout == .latest ? rows.slice(0 ..< heldOutIndices[0])
                                            : rows.select((0 ..< count).filter { !heldOutSet.contains($0) }))
        func score(_ name: String, _ weights: [Double]) -> Scored { Scored(name, weights, on: heldOut) }
        let base = score(centerName, center)
        var validation = [base.candidate]
        let simple = simpleModels(center: center, centerName: centerName).filter { $0.name != centerName }.map { model -> Scored in
            let scored = score(model.name, model.weights)
            validation.append(scored.candidate)
            return scored
        }
        func mixes(of anchor: Scored) -> [(share: Double, scored: Scored)] {
            shares.filter { $0 > 0 }.map { share in
                (share, score(share == 1 ? "fit" : "fit x \(share)", zip(fitted, anchor.weights).map { share * $0 + (1 - share) * $1 }))
            }
        }
        var anchor = base
        var share: Double
        var kept: Scored
        if trustPrior {
            // A population prior holds unless a simple model beats it; the user's own fit then gets the
            // share its evidence over the anchor earns.
            anchor = strongest(simple, over: base) ?? base
            let fit = score("fit", fitted)
            validation.append(fit.candidate)
            share = evidenceShare(z: evidence(fit, over: anchor))
            let anchorWeights = anchor.weights
            kept = share == 0 ? anchor : share == 1 ? fit
                : score(String(format: "fit x %.2f", share), zip(fitted, anchorWeights).map { share * $0 + (1 - share) * $1 })
        } else {
            // A fixed prior is only a starting point: the user's own fit holds unless a simple model
            // beats it, and then the fit keeps the share that beats that model.
            let own = mixes(of: base)
            validation += own.map(\.scored.candidate)
            share = 1
            kept = own[0].scored
            if let better = strongest(simple, over: kept) {
                anchor = better
                let partial = mixes(of: better).filter { $0.share < 1 }
                validation += partial.map(\.scored.candidate)
                let winner = strongest(partial.map(\.scored), over: better)
                share = winner.flatMap { w in partial.first { $0.scored.name == w.name }?.share } ?? 0
                kept = winner ?? better
            }
        }
        validation.append(Candidate(name: "chosen", logLikelihood: kept.candidate.logLikelihood,
                                    meanReciprocalRank: kept.candidate.meanReciprocalRank))
        return WeightGuard(center: center, centerName: centerName, anchor: anchor.weights, anchorName: anchor.name,
                           share: share, heldOutRows: heldOut.count, holdout: holdout, rowsAtChoice: count, validation: validation)
    }

    /// Too few rows to fit weights and check the fit (fewer than `guardMinimumRows`), but enough to
    /// compare models that fit nothing: the prior and the simple models. Each row was scored before
    /// its event was learned, and their weights were not fitted on any row, so every row is a held-out
    /// row for them (prequential). A population prior holds unless a simple model beats it by `margin`
    /// standard errors, as in the full guard; the fixed prior, only a starting point, gives way to the
    /// model with the highest mean log-likelihood on the rows (the choice with the most evidence
    /// among models that fitted nothing; a tie keeps the prior). The user's own fit gets no share.
    /// - Precondition: at least two rows (a standard error needs two).
    static func chooseFixed(rows: BlendRows, center: [Double], centerName: String, trustPrior: Bool) -> WeightGuard {
        let base = Scored(centerName, center, on: rows)
        let simple = simpleModels(center: center, centerName: centerName).filter { $0.name != centerName }
            .map { Scored($0.name, $0.weights, on: rows) }
        let kept: Scored
        if trustPrior {
            kept = strongest(simple, over: base) ?? base
        } else {
            kept = simple.reduce(base) { best, next in next.candidate.logLikelihood > best.candidate.logLikelihood ? next : best }
        }
        let validation = [base.candidate] + simple.map(\.candidate)
            + [Candidate(name: "chosen", logLikelihood: kept.candidate.logLikelihood, meanReciprocalRank: kept.candidate.meanReciprocalRank)]
        return WeightGuard(center: center, centerName: centerName, anchor: kept.weights, anchorName: kept.name, share: 0,
                           heldOutRows: rows.count, rowsAtChoice: rows.count, validation: validation)
    }

    /// A candidate's weights scored on held-out rows: per row, and as means.
    struct Scored {
        var name: String
        var weights: [Double]
        var rows: [(logLikelihood: Double, rank: Int)]
        var candidate: Candidate

        init(_ name: String, _ weights: [Double], on heldOut: BlendRows) {
            let results = heldOut.evaluate(weights: weights)
            let n = Double(results.count)
            self.name = name
            self.weights = weights
            rows = results
            candidate = Candidate(name: name, logLikelihood: results.reduce(0) { $0 + $1.logLikelihood } / n,
                                  meanReciprocalRank: results.reduce(0) { $0 + 1 / Double($1.rank) } / n)
        }
    }

    /// The mean held-out log-likelihood gain of `challenger` over `holder`, paired row by row, and the
    /// standard error of that mean (NaN for no rows).
    static func pairedGain(_ challenger: Scored, over holder: Scored) -> (mean: Double, error: Double) {
        let gains = zip(challenger.rows, holder.rows).map { $0.logLikelihood - $1.logLikelihood }
        let n = Double(gains.count)
        let mean = gains.reduce(0, +) / n
        let variance = gains.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / max(1, n - 1)
        return (mean, (variance / n).squareRoot())
    }

    /// The mean paired gain of `challenger` over `holder` in standard errors of that mean (+infinity for a
    /// gain without spread, -infinity for a loss without spread, 0 for no difference or no rows).
    static func evidence(_ challenger: Scored, over holder: Scored) -> Double {
        let (mean, error) = pairedGain(challenger, over: holder)
        guard !mean.isNaN else { return 0 }
        guard error > 0 else { return mean == 0 ? 0 : mean > 0 ? .infinity : -.infinity }
        return mean / error
    }

    /// The mean paired gain of `challenger` over `holder`, when it clears the margin.
    static func significantGain(_ challenger: Scored, over holder: Scored) -> Double? {
        let (mean, error) = pairedGain(challenger, over: holder)
        return mean > margin * error && mean > 0 ? mean : nil
    }

    /// The challenger with the largest significant gain over `holder`, if any.
    static func strongest(_ challengers: [Scored], over holder: Scored) -> Scored? {
        challengers.compactMap { challenger in significantGain(challenger, over: holder).map { (challenger, $0) } }
            .max { $0.1 < $1.1 }?.0
    }

    /// One line of a training report: what earned weight.
    public var summary: String {
        guard heldOutRows > 0 else {
            return share == 0 ? "too few rows to hold any out: the \(centerName) weights as they are"
                : "no guard: own fit pulled toward the \(centerName) weights"
        }
        if heldOutRows == rowsAtChoice, let chosen = validation.last, chosen.name == "chosen" {
            return "too few rows to fit (\(rowsAtChoice)): \(anchorName), the best model that fits nothing on every row "
                + String(format: "(log-lik %.3f, mrr %.3f); prior: \(centerName)", chosen.logLikelihood, chosen.meanReciprocalRank)
        }
        let kept = share == 1 ? "own fit kept whole" : share == 0 ? "own fit dropped" : String(format: "own fit x %.2f", share)
        let fit = validation.first { $0.name == "fit" }
        let anchorScore = validation.first { $0.name == anchorName }
        let which = holdout == .latest ? "the latest" : "spread at random: rows share instants"
        var text = "\(kept), shrunk toward \(anchorName) (held-out rows \(heldOutRows), \(which)"
        if let fit, let anchorScore {
            func f(_ value: Double) -> String { String(format: "%.3f", value) }
            text += "; log-lik fit \(f(fit.logLikelihood)), \(anchorName) \(f(anchorScore.logLikelihood))"
            text += "; mrr fit \(f(fit.meanReciprocalRank)), \(anchorName) \(f(anchorScore.meanReciprocalRank))"
        }
        return text + "); prior: \(centerName)"
    }
}
