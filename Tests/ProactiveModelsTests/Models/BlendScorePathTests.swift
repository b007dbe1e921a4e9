import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

// MARK: - The blend's direct score path against its signals times its weights

/// `logScores(at:)` sums Σ_f w_f · signal_f target by target without the targets x features matrix and
/// skips the signals whose weight is 0; `signals(at:)` (explanations, training rows) writes every signal.
/// The two must agree to the last bit, on a model with many targets, at moments in every transition
/// bucket and with recent events the model has not learned.
@Suite("Blend: direct scores equal signals x weights")
struct BlendScorePathTests {
    static let targetCount = 120

    /// 1,500 events over about 16 days among 120 targets (popular ones more often, a successor habit), each
    /// with a context; some with a count above 1.
    static func events() -> [Event] {
        var random = SeededGenerator(seed: 41)
        var events: [Event] = []
        var time = Fixtures.start
        var previous = 0
        for i in 0 ..< 1_500 {
            time += 300 + random.unit() * 1_500
            let t = i < targetCount ? i : random.chance(0.3) ? (previous * 7 + 3) % targetCount
                : Int(Double(targetCount) * random.unit() * random.unit())
            let context = ["focus": random.chance(0.5) ? "work" : "personal"]
            events.append(Event(target: Fixtures.target("app\(t)"), date: Date(timeIntervalSince1970: time), utcOffset: 0,
                                context: context, weight: random.chance(0.1) ? 3 : 1))
            previous = t
        }
        return events
    }

    static func reference(_ model: BlendModel, at moment: Moment) -> [Double] {
        let signals = model.signals(at: moment)
        let features = BlendFeature.count
        return (0 ..< signals.count / features).map { t in
            var score = 0.0
            for f in 0 ..< features { score += model.weights[f] * signals[t * features + f] }
            return score
        }
    }

    /// Moments after the last learned event: the previous target in each transition bucket (and none after a day),
    /// with the day's context or none, with recent events it has not learned (one of a target it never saw), and
    /// with recent events it has.
    static func moments(after events: [Event]) -> [Moment] {
        let last = events.last!.date
        let gaps: [Double] = [5 * 60, 10 * 60, 3 * 3_600, 7.5 * 3_600, 12 * 3_600, 23 * 3_600, 2 * 86_400]
        var moments: [Moment] = []
        for (i, gap) in gaps.enumerated() {
            let context: [String: String] = i % 3 == 0 ? [:] : ["focus": "work"]
            moments.append(Moment(date: last.addingTimeInterval(gap), utcOffset: i % 2 == 0 ? 0 : 3_600, context: context,
                                  recent: Array(events.suffix(i % 4))))
        }
        let unlearned = [Event(target: Fixtures.target("app5"), date: last.addingTimeInterval(120), utcOffset: 0),
                         Event(target: Fixtures.target("never-seen"), date: last.addingTimeInterval(240), utcOffset: 0),
                         Event(target: Fixtures.target("app9"), date: last.addingTimeInterval(360), utcOffset: 0)]
        for gap: Double in [400, 2 * 3_600, 10 * 3_600] {
            moments.append(Moment(date: last.addingTimeInterval(gap), utcOffset: 0, context: ["focus": "personal"], recent: unlearned))
        }
        return moments
    }

    @Test func directScoresEqualSignalsTimesWeights() throws {
        let events = Self.events()
        let fitted = try BlendTrainer().fit(TrainingSet(events: events))
        #expect(fitted.space.targetCount == Self.targetCount)
        #expect(fitted.logistic != nil)
        // The fitted weights, the plain profile's (most of them 0), and weights with a scattered 0.
        var scattered = fitted
        scattered.weights = fitted.weights.enumerated().map { f, w in f % 3 == 1 ? 0 : w + 0.25 }
        var profileOnly = fitted
        profileOnly.weights = BlendFeature.defaultWeights
        var checked = 0
        for model in [fitted, scattered, profileOnly] {
            for moment in Self.moments(after: events) {
                let fast = model.logScores(at: moment)
                let expected = Self.reference(model.caughtUp(to: moment) ?? model, at: moment)
                #expect(fast.count == expected.count)
                #expect(fast == expected, "moment \(moment.date), weights \(model.weights)")
                checked += 1
            }
        }
        #expect(checked == 30)
        // Every transition bucket, and none, was among the moments.
        let buckets = Self.moments(after: events).map { moment -> BlendFeature? in
            fitted.transitionFeature(gap: moment.date.timeIntervalSince1970 - fitted.usage.lastTime)
        }
        let expectedBuckets: [BlendFeature?] = [.transitionRecent, .transitionStale, .transitionOvernight, nil]
        for bucket in expectedBuckets { #expect(buckets.contains(bucket)) }
    }

    /// The direct path leaves out the terms that are 0 (one-hot signals not set, signals of weight 0 not taken):
    /// with every weight non-zero (so every one-hot signal's term is present when set), with weights of exactly 1
    /// and -1 (a one-hot term is then ±1, nothing to round), and with each one-hot group alone, every score has
    /// the reference's bits (up to the sign of a score of exactly 0) and every probability is the same.
    @Test func directScoresKeepTheBitsWithOneHotWeights() throws {
        let events = Self.events()
        let fitted = try BlendTrainer().fit(TrainingSet(events: events))
        var everyWeight = fitted
        everyWeight.weights = fitted.weights.enumerated().map { f, w in w + (f % 2 == 0 ? 0.5 : -0.375) }
        var units = fitted
        units.weights = (0 ..< BlendFeature.count).map { Double($0 % 3) - 1 }
        var oneHotOnly = fitted
        let oneHot = Set(Array(BlendFeature.transitionRecent.rawValue ... BlendFeature.backToPrevious.rawValue)
            + Array(BlendFeature.repeat1m.rawValue ... BlendFeature.repeatLater.rawValue))
        oneHotOnly.weights = (0 ..< BlendFeature.count).map { oneHot.contains($0) ? Double($0) / 7 : 0 }
        for model in [everyWeight, units, oneHotOnly] {
            for moment in Self.moments(after: events) {
                let learned = model.caughtUp(to: moment) ?? model
                let fast = model.logScores(at: moment)
                let expected = Self.reference(learned, at: moment)
                #expect(fast.count == expected.count)
                let differing = zip(fast, expected).filter { $0.bitPattern != $1.bitPattern && !($0 == 0 && $1 == 0) }
                #expect(differing.isEmpty, "moment \(moment.date): \(differing.prefix(3))")
                let probabilities = model.distribution(at: moment).probabilities
                #expect(probabilities == Softmax.distribution(logScores: expected, space: learned.space).probabilities)
            }
        }
    }

    /// `SignalFrame.kernelSums` (four targets at a time, the last group's lanes past the end repeating the last
    /// target) against a plain sum target by target, kernel by kernel in the list's order: the same bits, for target
    /// counts that are and are not multiples of four, dense and sparse (unordered) kernel lists, and no kernels.
    @Test func kernelSumsEqualAPlainSumTargetByTarget() {
        var random = SeededGenerator(seed: 7)
        let stride = 24
        for targets in [0, 1, 2, 3, 4, 5, 7, 8, 13, 1_001] {
            let sums = (0 ..< targets * stride).map { _ in random.chance(0.2) ? 0 : random.unit() * 1e3 * Double.pi }
            let dense = (0 ..< stride).map { (kernel: $0, weight: random.unit() / 7) }
            let sparse = [(kernel: 17, weight: 0.3), (kernel: 3, weight: 1e-5), (kernel: 4, weight: 0.61)]
            for kernels in [dense, sparse, []] {
                let fast = sums.withUnsafeBufferPointer {
                    SignalFrame.kernelSums($0, stride: stride, columns: kernels.map(\.kernel), weights: kernels.map(\.weight), targets: targets)
                }
                let plain = (0 ..< targets).map { t in
                    var sum = 0.0
                    for (k, weight) in kernels { sum += weight * sums[t * stride + k] }
                    return sum
                }
                #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern), "\(targets) targets, \(kernels.count) kernels")
            }
        }
    }

    @Test func frequencySignalsFollowLearningRemovalAndRestore() throws {
        let events = Self.events()
        var model = try BlendTrainer().fit(TrainingSet(events: Array(events.prefix(1_200))))
        for event in events.dropFirst(1_200).prefix(200) { model.update(with: event) }
        let removed = model.remove(events[1_300])
        #expect(removed)
        let restored = try BlendModel(serialized: model.serialized())
        let moment = Self.moments(after: events)[0]
        for candidate in [model, restored] {
            let signals = candidate.signals(at: moment)
            let features = BlendFeature.count
            for t in 0 ..< candidate.space.targetCount {
                #expect(signals[t * features + BlendFeature.frequencyUses.rawValue] == Foundation.log(candidate.usage.uses[t] + 0.01))
                #expect(signals[t * features + BlendFeature.frequencyOccasions.rawValue]
                    == Foundation.log(candidate.usage.occasions[t] + 0.01))
            }
            #expect(candidate.logScores(at: moment) == Self.reference(candidate, at: moment))
        }
        #expect(restored.logScores(at: moment) == model.logScores(at: moment))
    }
}
