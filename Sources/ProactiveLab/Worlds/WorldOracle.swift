import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - The oracle: the generator's own answer

/// The chance of each target being a world's next donation after a moment, given the donations before
/// it, computed from the process that made the world (`HabitWorld`), by Monte Carlo.
///
/// Every habit and noise app is an independent process within the day. Given what was used earlier that
/// day (the moment's "today"), each process's next use after the moment is drawn from its law
/// conditioned on that history: a habit already used today is done; one not yet used is either skipped
/// or still to come, with its time drawn from the normal law of its time cut at the moment; a follower
/// comes a uniform delay after its leader (drawn first when the leader is still to come); a noise app's
/// next use is exponential (its uses are a Poisson process over 07:00-23:00). The first of those draws is
/// the next donation; none within `horizon` minutes is "nothing".
///
/// ```swift
/// let oracle = WorldOracle(world: world, uses: world.uses())
/// let answer = oracle.answer(day: 160, minute: 1260, samples: 4000, seed: 1)
/// answer.next["com.example.messages/UseMessagesIntent"]   // its chance of being next within the hour
/// ```
public struct WorldOracle: Sendable {
    public let world: HabitWorld
    /// Per day index: the day's uses in time order.
    let usesByDay: [[HabitWorld.Use]]
    public var horizon: Double = 60

    public init(world: HabitWorld, uses: [HabitWorld.Use]) {
        self.world = world
        var byDay = [[HabitWorld.Use]](repeating: [], count: world.days)
        for use in uses where use.day >= 0 && use.day < world.days { byDay[use.day].append(use) }
        usesByDay = byDay
    }

    public struct Answer: Sendable {
        /// P(target is the next donation | one comes within the horizon); sums to 1 when `nothing` < 1.
        public var next: [String: Double]
        /// P(no donation within the horizon).
        public var nothing: Double
        /// Draws in which something came within the horizon (the precision of `next`).
        public var informative: Int

        /// The most likely next target and its margin over the second.
        public var top: (target: String, probability: Double, margin: Double)? {
            let sorted = next.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            guard let first = sorted.first else { return nil }
            return (first.key, first.value, first.value - (sorted.dropFirst().first?.value ?? 0))
        }

        /// Whether the top is sure enough to ask a model to agree: top >= 0.5, margin >= 0.2, and at
        /// least 400 informative draws.
        public var confident: Bool {
            guard let top, informative >= 400 else { return false }
            return top.probability >= 0.5 && top.margin >= 0.2
        }
    }

    /// The oracle's answer at local `minute` of day index `day`, from the donations before it.
    /// - Parameter seenToday: false: the day's uses before the moment are not taken into account (nothing
    ///   was recorded that day), and every process is drawn as one not used yet that day.
    public func answer(day: Int, minute: Double, samples: Int = 4000, seed: UInt64, seenToday: Bool = true) -> Answer {
        var random = SeededGenerator.derived(seed: seed, UInt64(day * 1440) &+ UInt64(minute.rounded()))
        let before = seenToday ? usesByDay[day].filter { $0.minute < minute } : []
        var seenAt: [String: Double] = [:]
        for use in before where seenAt[use.target] == nil { seenAt[use.target] = use.minute }
        let calendar = world.calendar(day)
        let end = minute + horizon
        var counts: [String: Int] = [:]
        var nothing = 0
        for _ in 0 ..< samples {
            var best = Double.infinity
            var bestTarget = ""
            var drawn = [Double?](repeating: nil, count: world.habits.count)
            for (h, habit) in world.habits.enumerated() {
                let time = nextTime(habit: h, habit, day: day, calendar: calendar, minute: minute, seenAt: seenAt, drawn: &drawn,
                                    random: &random)
                if let time, time < best {
                    best = time
                    bestTarget = habit.target
                }
            }
            for app in world.noise {
                let window = NoiseApp.window
                guard minute < window.upperBound else { continue }
                let rate = app.perDay / (window.upperBound - window.lowerBound)
                let time = max(minute, window.lowerBound) - Foundation.log(max(random.unit(), 1e-300)) / rate
                if time < window.upperBound, time < best {
                    best = time
                    bestTarget = app.target
                }
            }
            if best <= end { counts[bestTarget, default: 0] += 1 } else { nothing += 1 }
        }
        let informative = samples - nothing
        var next: [String: Double] = [:]
        for (target, count) in counts { next[target] = Double(count) / Double(max(informative, 1)) }
        return Answer(next: next, nothing: Double(nothing) / Double(samples), informative: informative)
    }

    /// A habit's next use after `minute` today in one draw (nil: none today), given what was seen before.
    /// `drawn` holds the draws of habits already drawn in this sample (a follower reads its leader's).
    func nextTime(habit h: Int, _ habit: WorldHabit, day: Int, calendar: CalendarDay, minute: Double, seenAt: [String: Double],
                  drawn: inout [Double?], random: inout SeededGenerator) -> Double? {
        if let seen = seenAt[habit.target] {
            drawn[h] = seen
            return nil
        }
        guard habit.scheduled(onDay: day, calendar) else { return nil }
        if let leader = habit.leader {
            let leaderTarget = world.habits[leader].target
            let delay = habit.delay
            if let at = seenAt[leaderTarget] {
                // The leader came at `at`; the follower (not seen yet) comes in [at + a, at + b] with chance 1 - skip.
                let low = max(minute, at + delay.lowerBound), high = at + delay.upperBound
                guard high > low else { return nil }
                let left = (high - low) / (delay.upperBound - delay.lowerBound)
                let p = (1 - habit.skip) * left / (habit.skip + (1 - habit.skip) * left)
                guard random.chance(p) else { return nil }
                return low + random.unit() * (high - low)
            }
            guard let leaderTime = drawn[leader] else { return nil }
            guard !random.chance(habit.skip) else { return nil }
            let time = leaderTime + delay.lowerBound + random.unit() * (delay.upperBound - delay.lowerBound)
            return time < 1439 ? time : nil
        }
        // A habit not seen yet today: skipped, or to come at mean + jitter · Z cut at the moment.
        let mean = habit.meanMinute(onDay: day)
        let sigma = max(habit.jitter, 0.5)
        let z = (minute - mean) / sigma
        let tail = 0.5 * erfc(z / 2.squareRoot())  // P(Z > z)
        let p = (1 - habit.skip) * tail / (habit.skip + (1 - habit.skip) * tail)
        guard random.chance(p) else { return nil }
        var time: Double
        if z < 2.5 {
            repeat { time = mean + sigma * random.gaussian() } while time < minute
        } else {
            // Far in the tail: the normal law cut at z is nearly exponential with mean sigma / z.
            time = minute - sigma / z * Foundation.log(max(random.unit(), 1e-300))
        }
        if habit.needsFocus && !world.focusOn(day: day, minute: time) { return nil }
        drawn[h] = time
        return time
    }
}
