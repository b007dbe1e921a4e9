import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - A synthetic user with many targets

/// A deterministic, learnable donation history for one user with any number
/// of targets, for shapes the routine simulator (about 25 targets a user)
/// cannot reach.
///
/// Each target has a Zipf popularity (exponent 0.9), a favourite local
/// minute (spread 45 minutes), a favourite Focus and place, and a successor
/// target it tends to lead to (probability 0.3), so time, context and the
/// previous-target features all carry signal. The first `targets` events
/// visit every target once, so the model's vocabulary has exactly `targets`
/// entries. Everything comes from `seed`.
///
/// ```swift
/// let user = SyntheticUser(targets: 1_000, seed: 7)
/// let events = user.events(count: 20_000, days: 365)   // sorted by date
/// ```
public struct SyntheticUser: Sendable {
    public let targetCount: Int
    public let seed: UInt64
    /// Local midnight of day 0 (a Monday, 2026-01-05 UTC); the user lives at UTC.
    public let start: Date
    /// The targets, as keys the default resolver gives their (app, intent, parameters).
    public let targets: [Target]
    private let cumulative: [Double]
    private let favouriteMinute: [Double]
    private let favouriteFocus: [Int]
    private let favouritePlace: [Int]
    private let successor: [Int]

    public static let focusValues = ["work", "personal", "sleep"]
    public static let placeValues = ["home", "work", "commute", "gym"]

    public init(targets count: Int, seed: UInt64, start: Date = Date(timeIntervalSince1970: 1_767_571_200)) {
        precondition(count >= 1, "a user needs at least one target")
        targetCount = count
        self.seed = seed
        self.start = start
        var random = SeededGenerator.derived(seed: seed, 0xB3_0001)
        let resolver = TargetResolver()
        targets = (0 ..< count).map { t in
            let app = "com.bench.app\(t % 97)"
            return resolver.target(app: app, intent: "BenchIntent\(t / 97)", parameters: ["item": .string("item-\(t)")])
        }
        var total = 0.0
        cumulative = (0 ..< count).map { t in
            total += 1 / Foundation.pow(Double(t + 1), 0.9)
            return total
        }
        favouriteMinute = (0 ..< count).map { _ in 360 + random.unit() * 1020 }
        favouriteFocus = (0 ..< count).map { _ in random.integer(in: 0 ... 2) }
        favouritePlace = (0 ..< count).map { _ in random.integer(in: 0 ... 3) }
        successor = (0 ..< count).map { _ in random.integer(in: 0 ... (count - 1)) }
    }

    /// The key of target `t`.
    public func key(_ t: Int) -> TargetKey { targets[t].key }

    /// The targets by key (what `TrainingSet.targets` and `Ranker` take).
    public var targetsByKey: [TargetKey: Target] {
        Dictionary(uniqueKeysWithValues: targets.map { ($0.key, $0) })
    }

    // MARK: Events

    /// `count` events over `days` days, sorted by date. Deterministic per seed and arguments.
    /// - Precondition: `count >= targetCount` (every target occurs).
    public func events(count: Int, days: Int) -> [Event] {
        precondition(count >= targetCount, "need at least one event per target")
        var random = SeededGenerator.derived(seed: seed, UInt64(count) &* 31 &+ UInt64(days))
        var dated: [(time: Double, target: Int, focus: Int, place: Int)] = []
        dated.reserveCapacity(count)
        var previous = 0
        for i in 0 ..< count {
            let t: Int
            if i < targetCount {
                t = i
            } else if random.chance(0.3) {
                t = successor[previous]
            } else {
                t = drawByPopularity(&random)
            }
            let day = Double(random.integer(in: 0 ... max(0, days - 1)))
            let minute = min(1439, max(0, favouriteMinute[t] + random.gaussian(deviation: 45)))
            let focus = random.chance(0.8) ? favouriteFocus[t] : random.integer(in: 0 ... 2)
            let place = random.chance(0.8) ? favouritePlace[t] : random.integer(in: 0 ... 3)
            dated.append((day * 86_400 + (minute * 60).rounded(), t, focus, place))
            previous = t
        }
        dated.sort { ($0.time, $0.target) < ($1.time, $1.target) }
        return dated.map { item in
            Event(target: targets[item.target].key, date: start.addingTimeInterval(item.time), utcOffset: 0,
                  context: ["focus": Self.focusValues[item.focus], "place": Self.placeValues[item.place]])
        }
    }

    /// One more event `seconds` after `date`: a popular target at that time, in its usual context.
    public func event(after date: Date, seconds: Double, random: inout SeededGenerator) -> Event {
        let t = drawByPopularity(&random)
        return Event(target: targets[t].key, date: date.addingTimeInterval(seconds), utcOffset: 0,
                     context: ["focus": Self.focusValues[favouriteFocus[t]], "place": Self.placeValues[favouritePlace[t]]])
    }

    /// The same events as donations of `user` (for the store benchmarks).
    public func donations(_ events: [Event], user: String) -> [Donation] {
        let byKey = targetsByKey
        return events.map { event in
            let target = byKey[event.target]!
            return Donation(user: user, app: target.app, intent: target.intent, parameters: target.parameters,
                            date: event.date, utcOffset: event.utcOffset, context: event.context)
        }
    }

    private func drawByPopularity(_ random: inout SeededGenerator) -> Int {
        let threshold = random.unit() * cumulative[cumulative.count - 1]
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > threshold { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
