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
}
