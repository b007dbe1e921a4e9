import Foundation
import Testing
import ProactiveCore
@testable import ProactiveModels

/// The routine signal's nested contexts on a planted habit: weather at 07:05 every day, coffee at 07:25
/// on weekdays only, six weeks (UTC clock, 2026-10-05 is a Monday).
@Suite("Routine signal")
struct RoutineSignalTests {
    static let (weather, coffee) = (0, 1)
    static let monday = 1_791_158_400.0  // 2026-10-05T00:00:00Z, a Monday
    static let clock = LocalClock(timeZone: TimeZone(identifier: "UTC"))

    static func record(_ usage: inout UsageTracker, target: Int, day: Int, minute: Double) {
        let time = monday + Double(day) * 86_400 + minute * 60
        let reading = clock.read(Date(timeIntervalSince1970: time))
        usage.record(target: target, time: time, weight: 1,
                     fine: CircularKernels.sparseWeights(count: 96, concentration: 128, minuteOfDay: reading.minuteOfDay), reading: reading)
    }

    static func habit() -> UsageTracker {
        var usage = UsageTracker(targetCount: 2, shortHalfLifeDays: 1, longHalfLifeDays: 14)
        for day in 0 ..< 42 {
            record(&usage, target: weather, day: day, minute: 7 * 60 + 5)
            if day % 7 < 5 { record(&usage, target: coffee, day: day, minute: 7 * 60 + 25) }
        }
        return usage
    }

    /// P(coffee) / P(weather) at `minute` of `day`, the previous use `gap` seconds before (or none).
    static func odds(_ usage: UsageTracker, day: Int, minute: Double, previous: Int?, gap: Double) -> Double {
        let time = monday + Double(day) * 86_400 + minute * 60
        let reading = clock.read(Date(timeIntervalSince1970: time))
        let logP = RoutineSignal.logProbabilities(
            usage, targets: 2, weekend: reading.isWeekend, minuteOfDay: reading.minuteOfDay,
            fine: CircularKernels.sparseWeights(count: 96, concentration: 128, minuteOfDay: reading.minuteOfDay),
            now: time, previous: previous, gap: gap)
        #expect(abs(logP.map(Foundation.exp).reduce(0, +) - 1) < 1e-12, "a distribution")
        return Foundation.exp(logP[coffee] - logP[weather])
    }

    @Test("a weekday at 07:23 says coffee, with or without the weather check before it, more so right after it")
    func weekdayCoffee() {
        let usage = Self.habit()
        let alone = Self.odds(usage, day: 43, minute: 7 * 60 + 23, previous: nil, gap: 0)  // Tuesday, nothing yet
        let after = Self.odds(usage, day: 43, minute: 7 * 60 + 23, previous: Self.weather, gap: 1080)
        #expect(alone > 1.2)  // the quarter-hour kernels are about 20 minutes wide: weather 18 minutes away still counts
        #expect(after > 10 * alone)
    }

    @Test("a Saturday after the weather check does not say coffee: twelve weekend mornings had none")
    func saturdayNoCoffee() {
        let usage = Self.habit()
        #expect(Self.odds(usage, day: 47, minute: 7 * 60 + 23, previous: Self.weather, gap: 1080) < 0.2)
        #expect(Self.odds(usage, day: 47, minute: 7 * 60 + 23, previous: nil, gap: 0) < 0.2)
    }

    @Test("what followed a target is counted per day type, only within the window and never at the same instant")
    func follows() {
        var usage = Self.habit()
        #expect(usage.follows[0][Self.weather] == [Self.coffee: 30])  // 30 weekdays, 20 minutes apart
        #expect(usage.follows[0][Self.coffee].isEmpty)  // weather came the next morning: outside the 30-minute window
        #expect(usage.follows[1][Self.weather].isEmpty)
        Self.record(&usage, target: Self.weather, day: 50, minute: 8 * 60)
        Self.record(&usage, target: Self.coffee, day: 50, minute: 8 * 60 + 10)
        Self.record(&usage, target: Self.weather, day: 50, minute: 8 * 60 + 10)  // the same instant: follows nothing
        #expect(usage.follows[0][Self.weather][Self.coffee] == 31)  // day 50 is a Tuesday
        #expect(usage.follows[0][Self.coffee][Self.weather] == nil)
    }

    /// `logProbabilities` as first written, one array per level, each `smoothed` toward the coarser one,
    /// then the logarithms: the reference its one-pass form is checked against.
    static func plainLogProbabilities(_ usage: UsageTracker, targets: Int, weekend: Bool, minuteOfDay: Double,
                                      fine: [(kernel: Int, weight: Double)], now: Double, previous: Int?, gap: Double) -> [Double] {
        guard let levels = RoutineSignal.Levels(usage, targets: targets, weekend: weekend, minuteOfDay: minuteOfDay, fine: fine, now: now) else {
            return [Double](repeating: -Foundation.log(Double(targets)), count: targets)
        }
        let counts = (0 ..< targets).map(levels.counts)
        let s = RoutineSignal.strengths
        var p = RoutineSignal.smoothed(counts.map(\.frequency), strength: s.frequency,
                                       toward: [Double](repeating: 1 / Double(targets), count: targets))
        p = RoutineSignal.smoothed(counts.map(\.day), strength: s.day, toward: p)
        p = RoutineSignal.smoothed(counts.map(\.here), strength: s.time, toward: p)
        if let previous, previous < targets, gap > 0, gap <= usage.followWindow {
            var followed = [Double](repeating: 0, count: targets)
            for (next, count) in usage.follows[weekend ? 1 : 0][previous] where next < targets { followed[next] = count }
            p = RoutineSignal.smoothed(followed, strength: s.follow, toward: p)
        }
        return p.map { Foundation.log($0) }
    }

    @Test("the one-pass levels give the bits of one array per level: weekdays, weekends, with and without a previous use")
    func onePassIsThePlainLevels() {
        var usage = UsageTracker(targetCount: 6, shortHalfLifeDays: 1, longHalfLifeDays: 14)
        var random = SeededGenerator(seed: 27)
        for day in 0 ..< 30 {
            let minutes = (0 ..< 6).map { _ in 360 + random.unit() * 900 }.sorted()  // in time order
            for minute in minutes { Self.record(&usage, target: random.integer(in: 0 ... 4), day: day, minute: minute) }
        }
        for day in [31, 33, 34] {  // Thursday, Saturday, Sunday
            let minutes: [Double] = [0, 443, 727.5, 1_439]  // 00:00, 07:23, 12:07:30, 23:59
            for minute in minutes {
                let time: Double = Self.monday + Double(day) * 86_400 + minute * 60
                let reading = Self.clock.read(Date(timeIntervalSince1970: time))
                let fine = CircularKernels.sparseWeights(count: 96, concentration: 128, minuteOfDay: reading.minuteOfDay)
                for (previous, gap) in [(nil, 0.0), (2, 600.0), (2, 7_200.0), (5, 60.0)] as [(Int?, Double)] {
                    // Target 5 is never used: its counts are 0 at every level.
                    let fast = RoutineSignal.logProbabilities(usage, targets: 6, weekend: reading.isWeekend, minuteOfDay: reading.minuteOfDay,
                                                              fine: fine, now: time, previous: previous, gap: gap)
                    let plain = Self.plainLogProbabilities(usage, targets: 6, weekend: reading.isWeekend, minuteOfDay: reading.minuteOfDay,
                                                           fine: fine, now: time, previous: previous, gap: gap)
                    #expect(fast.map { $0.bitPattern } == plain.map { $0.bitPattern }, "day \(day) minute \(minute) previous \(String(describing: previous))")
                }
            }
        }
    }
}
