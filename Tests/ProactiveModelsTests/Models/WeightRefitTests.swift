import Foundation
@testable import ProactiveModels
import Testing

// MARK: - Refits under the guard

/// A refit starts from the previous fit (the kept weights with the guard's shrinkage undone) and
/// skips the fit when the guard keeps none of it; these tests hold both to the weights a refit
/// started from the prior reaches.
@Suite("Blend weight refits")
struct WeightRefitTests {
    static func guarded(share: Double) -> WeightGuard {
        var anchor = WeightGuard.mostRecentlyUsed
        anchor[BlendFeature.profilePrior.rawValue] = 0.5
        return WeightGuard(center: BlendFeature.defaultWeights, centerName: "fixed", anchor: anchor, anchorName: "mru",
                           share: share, heldOutRows: 10, rowsAtChoice: 100, validation: [])
    }

    @Test func theFitIsRecoveredFromTheKeptWeights() throws {
        let fit = (0 ..< BlendFeature.count).map { Double($0 % 7) * 0.3 - 0.8 }
        for share in WeightGuard.shares where share > 0 {
            let weightGuard = Self.guarded(share: share)
            let recovered = try #require(weightGuard.fitted(from: weightGuard.combine(fit)))
            #expect(zip(recovered, fit).allSatisfy { abs($0 - $1) <= 1e-12 }, "share \(share)")
        }
        #expect(Self.guarded(share: 1).fitted(from: fit) == fit)
        #expect(Self.guarded(share: 0).fitted(from: fit) == nil)
    }

    /// A model trained on a routine, its guard replaced by `weightGuard` and its weights by what the guard
    /// kept of `previousFit` (as after a refit under that guard); the guard does not choose again.
    static func model(_ weightGuard: WeightGuard, previousFit: [Double]) throws -> BlendModel {
        var model = try BlendTrainer().fit(TrainingSet(events: Fixtures.routine(days: 40, seed: 9, noise: 0.4)))
        model.weightGuard = weightGuard
        model.weights = weightGuard.combine(previousFit)
        model.eventsSinceGuard = 0
        return model
    }

    @Test func aGuardKeepingNoneOfTheFitKeepsTheAnchor() throws {
        let weightGuard = Self.guarded(share: 0)
        var model = try Self.model(weightGuard, previousFit: BlendFeature.defaultWeights)
        #expect(model.rows.count > 0)
        model.refitWeights()
        #expect(model.weights == weightGuard.anchor)
        #expect(model.eventsSinceWeightFit == 0)
    }

    @Test func aPartialShareRefitsFromThePreviousFitToTheSameWeights() throws {
        for share in [0.25, 0.5, 1] {
            let weightGuard = Self.guarded(share: share)
            var model = try Self.model(weightGuard, previousFit: BlendFeature.defaultWeights)
            let cold = weightGuard.combine(model.fitWeights(model.rows, start: weightGuard.center, center: weightGuard.center))
            model.refitWeights()
            let warm = model.weights
            #expect(zip(warm, cold).allSatisfy { abs($0 - $1) <= 1e-3 }, "share \(share)")
            // Refitting again on the same rows starts at the fit just made, so it hardly moves.
            model.refitWeights()
            #expect(zip(model.weights, warm).allSatisfy { abs($0 - $1) <= 1e-4 }, "share \(share)")
            #expect(model.weights != weightGuard.anchor)
        }
    }
}
