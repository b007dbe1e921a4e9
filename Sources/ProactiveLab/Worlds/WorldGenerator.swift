import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Drawing random worlds

/// Draws `HabitWorld`s at random from the grammar of habit kinds (`HabitKind`), deterministic per seed.
///
/// A world has 5 to 8 habits at distinct times of day (at least 40 minutes apart unless one follows
/// another), each of a kind drawn so that every kind appears often across a seed set, 2 to 4 noise apps
/// (1 to 4 uses a day at random times), a work Focus on about 60 % of weekdays (09:00-17:00), a time
/// zone drawn among zones with and without daylight saving time, and 180 days (five months of training,
/// one month of questions).
///
/// ```swift
/// let world = WorldGenerator().world(seed: 1007)
/// let donations = world.donations()
/// ```
public struct WorldGenerator: Sendable {
    public var days: Int
    public var trainDays: Int

    public init(days: Int = 180, trainDays: Int = 150) {
        precondition(days > trainDays && trainDays > 28)
        self.days = days
        self.trainDays = trainDays
    }

    /// The seed sets: one to develop on, one only to report (never looked at while changing a model).
    public enum SeedSet: String, CaseIterable, Sendable {
        case develop, report
        public func seeds(count: Int) -> [UInt64] {
            let base: UInt64 = self == .develop ? 1000 : 9_000_000
            return (0 ..< count).map { base + UInt64($0) }
        }
    }

    static let zones = ["America/New_York", "Europe/Berlin", "America/Los_Angeles", "Australia/Sydney", "Asia/Tokyo", "UTC"]
    /// Habit kinds a world's calendar habits are drawn from (follows, context, moved, stopped and started
    /// are added on top, and noise apps besides).
    static let calendarKinds: [HabitKind] = [.daily, .weekdays, .weekends, .weekdaySet, .everyNWeeks, .dayOfMonth,
                                             .lastDayOfMonth, .nthWeekday]
    static let apps = ["mail", "messages", "coffee", "weather", "music", "fitness", "bank", "rent", "podcasts", "news",
                       "notes", "maps", "hike", "groceries", "lesson", "reader", "calendar", "camera", "journal", "bills",
                       "plants", "recipes", "photos", "trains"]

    public func world(seed: UInt64) -> HabitWorld {
        var random = SeededGenerator.derived(seed: seed, 0x3011_D5)
        let zone = TimeZone(identifier: Self.zones[random.integer(in: 0 ... Self.zones.count - 1)])!
        // A first day in 2026 or 2027 (local day numbers 20,454 = 2026-01-01 onward).
        let firstDay = 20_454 + random.integer(in: 0 ... 700)
        var names = Self.apps
        for i in stride(from: names.count - 1, to: 0, by: -1) { names.swapAt(i, random.integer(in: 0 ... i)) }
        var nextName = 0
        func take() -> String {
            defer { nextName += 1 }
            return names[nextName % names.count]
        }
        var taken: [Double] = []
        // A time of day at least 40 minutes from every habit time drawn so far.
        func freeMinute(in range: ClosedRange<Double>) -> Double {
            for _ in 0 ..< 50 {
                let minute = (range.lowerBound + random.unit() * (range.upperBound - range.lowerBound)).rounded()
                if taken.allSatisfy({ abs($0 - minute) >= 40 }) {
                    taken.append(minute)
                    return minute
                }
            }
            let minute = (range.lowerBound + random.unit() * (range.upperBound - range.lowerBound)).rounded()
            taken.append(minute)
            return minute
        }
        func habit(_ kind: HabitKind, rule: DayRule, in range: ClosedRange<Double> = 390 ... 1320) -> WorldHabit {
            let name = take()
            return WorldHabit(kind: kind, app: "com.example.\(name)", intent: "Use\(name.prefix(1).uppercased())\(name.dropFirst())Intent",
                              rule: rule, minute: freeMinute(in: range), jitter: 3 + random.unit() * 9,
                              skip: random.unit() * 0.15)
        }
        var habits: [WorldHabit] = []
        let count = random.integer(in: 4 ... 6)
        for _ in 0 ..< count {
            let kind = Self.calendarKinds[random.integer(in: 0 ... Self.calendarKinds.count - 1)]
            habits.append(habit(kind, rule: rule(for: kind, &random)))
        }
        // A habit that follows another (a daily or weekday one: only on the days the other happens).
        if random.chance(0.8), let leader = habits.firstIndex(where: { [.daily, .weekdays, .weekdaySet].contains($0.kind) }) {
            let name = take()
            habits.append(WorldHabit(kind: .follows, app: "com.example.\(name)", intent: "Open", rule: .every,
                                     minute: habits[leader].minute, jitter: 0, skip: random.unit() * 0.2, leader: leader,
                                     delay: 2 ... (5 + random.unit() * 10)))
        }
        // A habit of the work Focus: weekdays inside the Focus's span, only when it is on.
        if random.chance(0.7) {
            var focused = habit(.context, rule: .weekdays, in: 560 ... 990)
            focused.needsFocus = true
            habits.append(focused)
        }
        // Habits that change part-way: moved (weeks before the questions start), stopped, started.
        if random.chance(0.7) {
            var moved = habit(.moved, rule: random.chance(0.5) ? .every : .weekdays)
            moved.movedOn = trainDays - random.integer(in: 10 ... 28)
            moved.movedMinute = freeMinute(in: 390 ... 1320)
            habits.append(moved)
        }
        if random.chance(0.5) {
            var stopped = habit(.stopped, rule: random.chance(0.5) ? .every : .weekdays)
            stopped.until = trainDays - random.integer(in: 7 ... 21)
            habits.append(stopped)
        }
        if random.chance(0.5) {
            var started = habit(.started, rule: random.chance(0.5) ? .every : .weekdays)
            started.from = trainDays - random.integer(in: 10 ... 28)
            habits.append(started)
        }
        var noise: [NoiseApp] = []
        for _ in 0 ..< random.integer(in: 2 ... 4) {
            noise.append(NoiseApp(app: "com.example.\(take())", intent: "open", perDay: 1 + random.unit() * 3))
        }
        let calendarOf = { (d: Int) in CalendarDay(day: firstDay + d) }
        let focusDays = (0 ..< days).map { d in !calendarOf(d).isWeekend && random.chance(0.6) }
        return HabitWorld(seed: seed, user: "w-\(seed)", timeZone: zone, firstDay: firstDay, days: days, trainDays: trainDays,
                          habits: habits, noise: noise, focusDays: focusDays)
    }

    func rule(for kind: HabitKind, _ random: inout SeededGenerator) -> DayRule {
        switch kind {
        case .daily: return .every
        case .weekdays: return .weekdays
        case .weekends: return .weekends
        case .weekdaySet:
            let sets: [Set<Int>] = [[0, 2, 4], [1, 3], [0, 3], [1, 4], [2, 5]]
            return .weekdaySet(sets[random.integer(in: 0 ... sets.count - 1)])
        case .everyNWeeks:
            let period = random.chance(0.6) ? 2 : random.integer(in: 3 ... 4)
            return .everyNWeeks(period: period, phase: random.integer(in: 0 ... period - 1), weekday: random.integer(in: 0 ... 6))
        case .dayOfMonth: return .dayOfMonth(random.chance(0.5) ? 1 : random.integer(in: 2 ... 28))
        case .lastDayOfMonth: return .lastDayOfMonth
        case .nthWeekday:
            let ordinals = [1, 2, 3, -1]
            return .nthWeekday(ordinal: ordinals[random.integer(in: 0 ... 3)], weekday: random.integer(in: 0 ... 6))
        default: return .every
        }
    }
}
