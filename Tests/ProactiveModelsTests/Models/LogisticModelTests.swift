import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

@Suite("Logistic model")
struct LogisticModelTests {
    @Test func lbfgsFindsTheMinimumOfARosenbrockValley() {
        let result = LBFGS(maxIterations: 500, gradientTolerance: 1e-10).minimize(start: [-1.2, 1]) { x, g in
            let a = 1 - x[0]
            let b = x[1] - x[0] * x[0]
            g[0] = -2 * a - 400 * x[0] * b
            g[1] = 200 * b
            return a * a + 100 * b * b
        }
        #expect(abs(result.x[0] - 1) < 1e-6 && abs(result.x[1] - 1) < 1e-6)
        #expect(result.stop == .gradient || result.stop == .decrease)
    }

    @Test func gradientMatchesFiniteDifferences() {
        let events = Fixtures.routine(days: 10)
        let space = FeatureSpace(events: events)
        let encoder = MomentEncoder()
        let log = EventLog(events: events.map {
            LoggedEvent(target: space.index(of: $0.target)!, time: $0.date.timeIntervalSince1970, utcOffset: 0,
                        context: space.columns(for: $0.context), weight: $0.weight)
        }, space: space)
        let design = DesignMatrix(log: log, space: space, encoder: encoder, halfLifeDays: nil)
        var objective = SoftmaxObjective(design: design, targets: space.targetCount, l2: 0.7, pairs: PreviousPairs(design: design))
        var random = SeededGenerator(seed: 9)
        let weights = (0 ..< objective.parameterCount).map { _ in random.gaussian(deviation: 0.3) }
        var gradient = [Double](repeating: 0, count: weights.count)
        _ = objective.evaluate(weights, gradient: &gradient)
        var scratch = gradient
        for index in stride(from: 0, to: weights.count, by: 37) {
            var plus = weights
            var minus = weights
            plus[index] += 1e-2
            minus[index] -= 1e-2
            let numeric = (objective.evaluate(plus, gradient: &scratch) - objective.evaluate(minus, gradient: &scratch)) / 2e-2
            #expect(abs(numeric - gradient[index]) < 2e-2 * max(1, abs(numeric)), "index \(index): \(numeric) vs \(gradient[index])")
        }
    }

    /// The objective over the dense columns plus the previous-target pairs that occur equals the
    /// plain full-width computation (in Double, the rest of the block 0) to single-precision rounding.
    @Test func objectiveEqualsTheFullWidthProduct() {
        let events = Fixtures.routine(days: 10)
        let space = FeatureSpace(events: events)
        let log = EventLog(events: events.map { space.loggedEvent(for: $0)! }, space: space)
        let design = DesignMatrix(log: log, space: space, encoder: MomentEncoder(), halfLifeDays: 14)
        #expect((0 ..< design.rows).contains { design.previousOffset[$0] >= 0 })
        let k = space.targetCount
        let d = design.columns
        let l2 = 0.7
        let pairs = PreviousPairs(design: design)
        #expect(pairs.count > 0 && pairs.count < k * k, "some pairs occur, not all")
        // Each parameter's place in the full matrix: the dense columns, then the pairs.
        let block = design.previousBlock
        var places: [Int] = []
        for t in 0 ..< k { for j in 0 ..< d where !block.contains(j) { places.append(t * d + j) } }
        for p in 0 ..< block.count {
            for q in pairs.start[p] ..< pairs.start[p + 1] { places.append(Int(pairs.targets[q]) * d + block.lowerBound + p) }
        }
        var random = SeededGenerator(seed: 4)
        let parameters = places.map { _ in random.gaussian(deviation: 0.3) }
        var weights = [Double](repeating: 0, count: k * d)
        for (index, place) in places.enumerated() { weights[place] = parameters[index] }
        var referenceGradient = [Double](repeating: 0, count: k * d)
        var referenceLoss = 0.0
        for i in 0 ..< design.rows {
            let x = design.row(i).map(Double.init)
            let z = (0 ..< k).map { t in (0 ..< d).reduce(0.0) { $0 + x[$1] * weights[t * d + $1] } }
            let maximum = z.max()!
            let total = z.reduce(0.0) { $0 + exp($1 - maximum) }
            referenceLoss -= design.weights[i] * (z[design.labels[i]] - maximum - Foundation.log(total))
            for t in 0 ..< k {
                let residual = design.weights[i] * (exp(z[t] - maximum) / total - (t == design.labels[i] ? 1 : 0))
                for j in 0 ..< d { referenceGradient[t * d + j] += residual * x[j] }
            }
        }
        for t in 0 ..< k {
            for j in 1 ..< d {
                referenceLoss += 0.5 * l2 * weights[t * d + j] * weights[t * d + j]
                referenceGradient[t * d + j] += l2 * weights[t * d + j]
            }
        }
        var objective = SoftmaxObjective(design: design, targets: k, l2: l2, pairs: pairs)
        #expect(objective.parameterCount == places.count)
        var gradient = [Double](repeating: 0, count: places.count)
        let loss = objective.evaluate(parameters, gradient: &gradient)
        #expect(abs(loss - referenceLoss) < 1e-4 * abs(referenceLoss))
        let scale = referenceGradient.map(abs).max()!
        for (index, place) in places.enumerated() {
            #expect(abs(gradient[index] - referenceGradient[place]) < 1e-4 * scale, "parameter \(index)")
        }
    }

    @Test func learnsTheRoutine() throws {
        let model = try LogisticTrainer().fit(TrainingSet(events: Fixtures.routine(days: 28)))
        #expect(model.top(1, at: Fixtures.moment(day: 28, hour: 7.3)).first?.target == Fixtures.target("weather"))
        #expect(model.top(1, at: Fixtures.moment(day: 28, hour: 21)).first?.target == Fixtures.target("music"))
        #expect(model.top(1, at: Fixtures.moment(day: 33, hour: 10)).first?.target == Fixtures.target("news"))
    }

    @Test("allPreviousPairs learns every (previous, target) weight, as a dense peer does; the default only pairs that occur")
    func allPreviousPairsLearnsTheDenseBlock() throws {
        let training = TrainingSet(events: Fixtures.routine(days: 28))
        let sparse = try LogisticTrainer().fit(training)
        var configuration = LogisticConfiguration()
        configuration.allPreviousPairs = true
        let dense = try LogisticTrainer(configuration: configuration).fit(training)
        let targets = dense.space.targetCount
        let events = dense.log.events
        let occurring = Set(zip(events, events.dropFirst()).map { [$1.target.rawValue, $0.target.rawValue] })
        #expect(sparse.weights.storedPairs <= occurring.count)
        #expect(dense.weights.storedPairs > occurring.count)
        // A pair never seen is pushed below 0 (that target is less likely after that previous one).
        let unseen = (0 ..< targets).flatMap { p in (0 ..< targets).map { [$0, p] } }.filter { !occurring.contains($0) }
        #expect(!unseen.isEmpty)
        #expect(unseen.allSatisfy { (dense.weights.previous[$0[1]][$0[0]] ?? 0) < 0 })
        #expect(unseen.allSatisfy { sparse.weights.previous[$0[1]][$0[0]] == nil })
    }

    @Test func warmStartConvergesFaster() throws {
        let events = Fixtures.routine(days: 42)
        let trainer = LogisticTrainer()
        let early = try trainer.fit(TrainingSet(events: Array(events.prefix(events.count - 10))))
        let cold = try trainer.fit(TrainingSet(events: events))
        let warm = try trainer.fit(TrainingSet(events: events), warmStart: early)
        #expect(warm.lastIterations < cold.lastIterations)
        for moment in Fixtures.probeMoments {
            #expect(warm.top(1, at: moment).first?.target == cold.top(1, at: moment).first?.target)
        }
    }

    @Test func lazyRefitAndRemoval() throws {
        let events = Fixtures.routine(days: 14)
        var model = try LogisticTrainer(configuration: LogisticConfiguration(refitEvery: 3, refitAfterDays: 100))
            .fit(TrainingSet(events: events))
        let extra = [Fixtures.event("gym", day: 14, hour: 18, context: ["place": "gym"]),
                     Fixtures.event("gym", day: 14, hour: 18.5, context: ["place": "gym"])]
        for event in extra { model.update(with: event) }
        #expect(model.eventsSinceFit == 2)
        for event in extra { model.remove(event) }
        #expect(model.space.index(of: Fixtures.target("gym")) == nil)
        #expect(!String(decoding: model.serialized(), as: UTF8.self).contains("gym"))
        let refit = try LogisticTrainer().fit(TrainingSet(events: events))
        for moment in Fixtures.probeMoments {
            #expect(model.top(1, at: moment).first?.target == refit.top(1, at: moment).first?.target)
        }
    }
}
