import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Habit worlds: a person made of habits, with a known answer

/// The kinds of habit a world is made of (`HabitWorld`): the grammar the generator draws from, and the
/// rows of the worlds benchmark's table. A habit's kind names what decides its days, or what changed
/// about it part-way (moved, stopped, started).
public enum HabitKind: String, CaseIterable, Sendable, Codable {
    case daily, weekdays, weekends
    /// A fixed set of weekdays (Monday, Wednesday, Friday).
    case weekdaySet = "weekday-set"
    /// One weekday every other week, or every third or fourth week.
    case everyNWeeks = "every-n-weeks"
    /// One day of the month (the 1st, the 15th).
    case dayOfMonth = "day-of-month"
    case lastDayOfMonth = "last-day-of-month"
    /// The n-th weekday of the month (the first Monday, the last Friday).
    case nthWeekday = "nth-weekday"
    /// Follows another habit within minutes, only on the days the other happens.
    case follows
    /// Happens only in a context (a work Focus), which the donations and the question carry.
    case context
    /// A daily or weekday habit whose time changes part-way.
    case moved
    /// A habit that stops part-way, and one that starts part-way.
    case stopped, started
    /// Apps used often but at no fixed time.
    case noise
}

/// Which local days a habit may happen on.
public enum DayRule: Sendable, Hashable {
    case every
    case weekdays
    case weekends
    case weekdaySet(Set<Int>)
    /// `weekday` in weeks whose index is `phase` modulo `period`.
    case everyNWeeks(period: Int, phase: Int, weekday: Int)
    case dayOfMonth(Int)
    case lastDayOfMonth
    /// The `ordinal`-th `weekday` of the month; ordinal -1 is the last one.
    case nthWeekday(ordinal: Int, weekday: Int)

    public func holds(on day: CalendarDay) -> Bool {
        switch self {
        case .every: return true
        case .weekdays: return !day.isWeekend
        case .weekends: return day.isWeekend
        case .weekdaySet(let days): return days.contains(day.weekday)
        case .everyNWeeks(let period, let phase, let weekday):
            return day.weekday == weekday && ((day.week % period) + period) % period == phase
        case .dayOfMonth(let d): return day.dayOfMonth == min(d, day.daysInMonth)
        case .lastDayOfMonth: return day.daysToMonthEnd == 0
        case .nthWeekday(let ordinal, let weekday):
            guard day.weekday == weekday else { return false }
            return ordinal < 0 ? day.isLastWeekdayOfMonth : day.weekdayOrdinal == ordinal
        }
    }

    /// A short description ("weekdays", "Mon/Wed/Fri", "2nd Tue", ...).
    public var text: String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        switch self {
        case .every: return "every day"
        case .weekdays: return "weekdays"
        case .weekends: return "weekends"
        case .weekdaySet(let days): return days.sorted().map { names[$0] }.joined(separator: "/")
        case .everyNWeeks(let period, let phase, let weekday): return "\(names[weekday]) every \(period) weeks (phase \(phase))"
        case .dayOfMonth(let d): return "day \(d) of the month"
        case .lastDayOfMonth: return "last day of the month"
        case .nthWeekday(let ordinal, let weekday): return ordinal < 0 ? "last \(names[weekday])" : "#\(ordinal) \(names[weekday])"
        }
    }
}

/// One habit of a world: a target used on the days its rule allows, at a local time with jitter,
/// skipped on some days; or following another habit; possibly moved, stopped or started part-way.
public struct WorldHabit: Sendable {
    public var kind: HabitKind
    public var app: String
    public var intent: String
    public var rule: DayRule
    /// Mean local minute of the day, and the standard deviation of the time (minutes).
    public var minute: Double
    public var jitter: Double
    /// The chance of skipping a day the rule allows.
    public var skip: Double
    /// Day indices (from the world's first day) where the habit is active: [from, until).
    public var from: Int = 0
    public var until: Int = .max
    /// From this day index on, the mean time is `movedMinute`.
    public var movedOn: Int?
    public var movedMinute: Double = 0
    /// Only on days when the world's Focus is on at this habit's time.
    public var needsFocus = false
    /// Follows habit `leader` (an index) after `delay` minutes (uniform), with chance 1 - `skip`.
    public var leader: Int?
    public var delay: ClosedRange<Double> = 2 ... 8

    /// "app/intent": the key the world's files use for this habit's target.
    public var target: String { "\(app)/\(intent)" }

    /// The mean minute on day index `d`.
    func meanMinute(onDay d: Int) -> Double {
        if let movedOn, d >= movedOn { return movedMinute }
        return minute
    }

    /// Whether the habit can happen on day index `d` (calendar rule, active span; not the Focus or the leader).
    func scheduled(onDay d: Int, _ calendar: CalendarDay) -> Bool {
        d >= from && d < until && rule.holds(on: calendar)
    }
}

/// An app used at random: a Poisson number of uses a day at uniform times between 07:00 and 23:00.
public struct NoiseApp: Sendable {
    public var app: String
    public var intent: String
    public var perDay: Double
    public var target: String { "\(app)/\(intent)" }
    public static let window: ClosedRange<Double> = 420 ... 1380
}

/// A generated person: habits, noise apps, a work Focus on some weekdays, a time zone, and the
/// donations their life produced (`generate()`), over `days` days from `firstDay`.
///
/// The world is its own oracle (`WorldOracle`): it knows the process that made the donations, so for
/// any moment and the donations before it, the chance of each target being the next one is known.
public struct HabitWorld: Sendable {
    public var seed: UInt64
    public var user: String
    public var timeZone: TimeZone
    /// Local day number (days since 1970-01-01 on the user's clock) of the first day.
    public var firstDay: Int
    public var days: Int
    /// Days (from the first) in the training part; questions about later moments are "live".
    public var trainDays: Int
    public var habits: [WorldHabit]
    public var noise: [NoiseApp]
    /// Per day index: whether the work Focus is on, and its span (local minutes).
    public var focusDays: [Bool]
    public static let focusSpan: ClosedRange<Double> = 540 ... 1020

    public func calendar(_ d: Int) -> CalendarDay { CalendarDay(day: firstDay + d) }

    /// The instant of local minute `minute` on day index `d` in the world's zone (DST-correct).
    public func instant(day d: Int, minute: Double) -> Date {
        let local = Double(firstDay + d) * 86_400 + minute * 60
        var offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local)))
        for _ in 0 ..< 2 { offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local - offset))) }
        return Date(timeIntervalSince1970: local - offset)
    }

    /// The day index and local minute of an instant.
    public func local(_ date: Date) -> (day: Int, minute: Double) {
        let reading = LocalClock(timeZone: timeZone).read(date)
        return (reading.day - firstDay, reading.minuteOfDay)
    }

    public var start: Date { instant(day: 0, minute: 0) }
    public var trainEnd: Date { instant(day: trainDays, minute: 0) }
    public var end: Date { instant(day: days, minute: 0) }

    /// Whether the Focus is on at local `minute` of day index `d`.
    public func focusOn(day d: Int, minute: Double) -> Bool {
        d >= 0 && d < focusDays.count && focusDays[d] && Self.focusSpan.contains(minute)
    }

    /// A donation's context at day `d`, minute `minute`.
    func context(day d: Int, minute: Double) -> [String: String] {
        focusOn(day: d, minute: minute) ? ["focus": "work"] : [:]
    }

    /// One realised use.
    public struct Use: Sendable, Hashable {
        public var day: Int
        public var minute: Double
        public var target: String
    }

    /// The world's life: every use, day by day, in time order (deterministic per seed).
    public func uses() -> [Use] {
        var random = SeededGenerator.derived(seed: seed, 0x5EED_0F11)
        var all: [Use] = []
        for d in 0 ..< days {
            let calendar = self.calendar(d)
            var today: [Use] = []
            var times = [Double?](repeating: nil, count: habits.count)
            // Leaders before followers: a habit's index is after its leader's (the generator builds them so).
            for (h, habit) in habits.enumerated() {
                let skipped = random.chance(habit.skip)
                let z = random.gaussian()
                let u = random.unit()
                if let leader = habit.leader {
                    guard let at = times[leader], !skipped, habit.scheduled(onDay: d, calendar) else { continue }
                    let minute = at + habit.delay.lowerBound + u * (habit.delay.upperBound - habit.delay.lowerBound)
                    guard minute < 1439 else { continue }
                    times[h] = minute
                    today.append(Use(day: d, minute: minute, target: habit.target))
                    continue
                }
                guard habit.scheduled(onDay: d, calendar), !skipped else { continue }
                let minute = min(max(habit.meanMinute(onDay: d) + habit.jitter * z, 1), 1438)
                if habit.needsFocus && !focusOn(day: d, minute: minute) { continue }
                times[h] = minute
                today.append(Use(day: d, minute: minute, target: habit.target))
            }
            for app in noise {
                let count = Self.poisson(app.perDay, &random)
                for _ in 0 ..< count {
                    let minute = NoiseApp.window.lowerBound + random.unit() * (NoiseApp.window.upperBound - NoiseApp.window.lowerBound)
                    today.append(Use(day: d, minute: minute, target: app.target))
                }
            }
            today.sort { ($0.minute, $0.target) < ($1.minute, $1.target) }
            all += today
        }
        return all
    }

    /// The world's donations (docs/FORMATS.md lines): each use at its instant, with the offset in force then
    /// and the Focus as context.
    public func donations() -> [Donation] {
        let apps = Dictionary(uniqueKeysWithValues: habits.map { ($0.target, ($0.app, $0.intent)) } + noise.map { ($0.target, ($0.app, $0.intent)) })
        return uses().map { use in
            let (app, intent) = apps[use.target]!
            let date = instant(day: use.day, minute: use.minute)
            let rounded = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded())
            return Donation(user: user, app: app, intent: intent, date: rounded,
                            utcOffset: timeZone.secondsFromGMT(for: rounded), context: context(day: use.day, minute: use.minute))
        }
    }

    static func poisson(_ mean: Double, _ random: inout SeededGenerator) -> Int {
        let limit = Foundation.exp(-mean)
        var product = random.unit()
        var count = 0
        while product > limit {
            count += 1
            product *= random.unit()
        }
        return count
    }
}
