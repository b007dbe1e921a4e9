import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - What a routine scenario is made of

/// One thing a person does in an app, without parameters: an intent, or a plain launch.
///
/// ```swift
/// let coffee = RoutineAction(app: "com.example.coffee", intent: "OrderCoffeeIntent")
/// let mail = RoutineAction.open("com.example.mail")   // summary "Open com.example.mail"
/// ```
public struct RoutineAction: Sendable, Hashable {
    public var app: String
    public var intent: String

    public init(app: String, intent: String = Donation.openIntent) {
        self.app = app
        self.intent = intent
    }

    /// A plain launch of `app`.
    public static func open(_ app: String) -> RoutineAction { RoutineAction(app: app) }

    /// The target the engine predicts for this action (no intent definitions: every parameter counts, and there are none).
    public var target: TargetKey { TargetKey(app: app, intent: intent, parameters: [:]) }

    /// What the engine shows for the target and writes in "after ..." reasons ("OrderCoffeeIntent", "Open com.example.mail").
    public var summary: String { TargetResolver.defaultSummary(app: app, intent: intent, parameters: [:]) }
}

/// Which days of the log a habit happens on.
public enum RoutineDays: Sendable, Hashable {
    case everyDay
    /// Monday to Friday on the user's clock.
    case weekdays
    /// Saturday and Sunday on the user's clock.
    case weekends
    /// These `Calendar` weekday numbers (1 = Sunday ... 7 = Saturday).
    case on(Set<Int>)
    /// Every other day: days whose index (0 = the log's first day) modulo 2 is this value (0 or 1).
    case alternate(Int)

    /// Whether day `index`, a `weekday` (1 = Sunday ... 7 = Saturday), is one of these days.
    public func contains(index: Int, weekday: Int) -> Bool {
        switch self {
        case .everyDay: return true
        case .weekdays: return (2 ... 6).contains(weekday)
        case .weekends: return weekday == 1 || weekday == 7
        case let .on(weekdays): return weekdays.contains(weekday)
        case let .alternate(parity): return index % 2 == parity
        }
    }
}

/// A habit: one action at about the same local time on some days.
///
/// Each day it applies to, it happens with probability `chance`, at `minute` plus a uniform
/// jitter of at most `jitter` minutes each way (a minute past midnight falls on the next day).
///
/// ```swift
/// // Coffee at 07:40 +- 12 min on weekdays, in the first four weeks only.
/// RoutineHabit(.init(app: "com.example.coffee", intent: "OrderCoffeeIntent"), at: 7 * 60 + 40, jitter: 12,
///              on: .weekdays, during: [0 ..< 28])
/// ```
public struct RoutineHabit: Sendable {
    public var action: RoutineAction
    /// Minute of the local day (0 ... 1439).
    public var minute: Int
    public var jitter: Int
    public var days: RoutineDays
    /// Day indices the habit is kept on (0 = the log's first day); empty: every day of the log.
    public var during: [Range<Int>]
    public var chance: Double
    /// Context every donation of the habit carries (`focus`, `place`, ...).
    public var context: [String: String]
    /// The `count` of each donation (an aggregated line standing for that many uses).
    public var count: Int

    public init(_ action: RoutineAction, at minute: Int, jitter: Int = 10, on days: RoutineDays = .everyDay, during: [Range<Int>] = [],
                chance: Double = 1, context: [String: String] = [:], count: Int = 1) {
        self.action = action
        self.minute = minute
        self.jitter = jitter
        self.days = days
        self.during = during
        self.chance = chance
        self.context = context
        self.count = count
    }

    /// Whether the habit is kept on day `index`.
    public func isKept(onDay index: Int, weekday: Int) -> Bool {
        (during.isEmpty || during.contains { $0.contains(index) }) && days.contains(index: index, weekday: weekday)
    }
}

/// Launches with no pattern: random apps at uniformly random times in a window of the day.
public struct RoutineNoise: Sendable {
    public enum Amount: Sendable, Hashable {
        /// This many launches every day.
        case perDay(Int)
        /// As many as makes this share (0 ..< 1) of the day's donations noise: 0.5 = one random launch per habit donation.
        case share(Double)
    }

    public var apps: [String]
    public var amount: Amount
    /// The window, minutes of the local day: `from` ..< `to`.
    public var from: Int
    public var to: Int

    public init(apps: [String], amount: Amount, from: Int = 6 * 60, to: Int = 23 * 60 + 30) {
        self.apps = apps
        self.amount = amount
        self.from = from
        self.to = to
    }
}

/// A calendar date (the first day of a log), read in the user's time zone.
public struct RoutineDate: Sendable, Hashable {
    public var year: Int, month: Int, day: Int

    public init(_ year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// One person in a scenario: a time zone, a first day, habits and noise.
///
/// The log covers `trainingDays + liveDays` days from `start`. The first `trainingDays` are
/// stored before training; the `liveDays` after them are donated through the engine after
/// training, in date order (what the live model must learn without a refit).
public struct RoutineUser: Sendable {
    public var name: String
    /// An IANA time zone name ("America/Los_Angeles"): the habits' clock and the donations' offsets.
    public var timeZone: String
    /// Whether the zone is configured in the store (`users timezone set`); otherwise only the donations' offsets tell the clock.
    public var configuresZone: Bool
    public var start: RoutineDate
    public var trainingDays: Int
    public var liveDays: Int
    public var habits: [RoutineHabit]
    public var noise: [RoutineNoise]

    public init(_ name: String, timeZone: String, configuresZone: Bool = true, start: RoutineDate, trainingDays: Int, liveDays: Int = 0,
                habits: [RoutineHabit], noise: [RoutineNoise] = []) {
        self.name = name
        self.timeZone = timeZone
        self.configuresZone = configuresZone
        self.start = start
        self.trainingDays = trainingDays
        self.liveDays = liveDays
        self.habits = habits
        self.noise = noise
    }
}

/// A donation after training, at a local day and minute of one user.
public struct RoutineEvent: Sendable {
    public var user: String
    public var action: RoutineAction
    public var day: Int
    public var minute: Int
    public var context: [String: String]
    public var count: Int

    public init(_ user: String, _ action: RoutineAction, day: Int, at minute: Int, context: [String: String] = [:], count: Int = 1) {
        self.user = user
        self.action = action
        self.day = day
        self.minute = minute
        self.context = context
        self.count = count
    }
}

/// What a person expects the engine to answer at a moment.
///
/// Passes when the top-1 target is `expected`, its reasons contain `reason` (when set) and not
/// `forbiddenReason` (when set), and no target in `absent` appears in the top rows or their reasons.
public struct RoutineCheck: Sendable {
    public var user: String
    public var day: Int
    public var minute: Int
    public var context: [String: String]
    public var expected: RoutineAction
    /// A fragment one of the top-1 target's reasons must contain ("usually 07:", "after CheckWeatherIntent").
    public var reason: String?
    /// A fragment none of the top-1 target's reasons may contain.
    public var forbiddenReason: String?
    /// Targets that must not be ranked at all nor named in any shown reason (a deleted habit).
    public var absent: [RoutineAction]

    public init(_ user: String, day: Int, at minute: Int, context: [String: String] = [:], expect expected: RoutineAction,
                reason: String? = nil, notReason forbiddenReason: String? = nil, absent: [RoutineAction] = []) {
        self.user = user
        self.day = day
        self.minute = minute
        self.context = context
        self.expected = expected
        self.reason = reason
        self.forbiddenReason = forbiddenReason
        self.absent = absent
    }
}

/// What happens after training, in order.
public enum RoutineStep: Sendable {
    /// One donation through `Engine.donate` ("this morning").
    case donate(RoutineEvent)
    /// Every donation of `app` by `user` deleted through `Engine.delete` (unlearned at once).
    case deleteApp(user: String, app: String)
    /// Ask `Engine.predict` and judge the answer.
    case check(RoutineCheck)
}

/// A planted routine: users with generated logs, and what a person expects the engine to say.
///
/// `why` is one sentence a person would give for the expected answers; `covers` names the
/// dimension it tests ("sequence x day type"). The runner (`RoutineSuite`) stores the training
/// log, trains once, donates the live days, then walks `steps`.
public struct RoutineScenario: Sendable, Identifiable {
    public var name: String
    public var covers: String
    public var why: String
    public var seed: UInt64
    public var users: [RoutineUser]
    public var steps: [RoutineStep]

    public var id: String { name }

    public init(_ name: String, covers: String, why: String, seed: UInt64, users: [RoutineUser], steps: [RoutineStep]) {
        self.name = name
        self.covers = covers
        self.why = why
        self.seed = seed
        self.users = users
        self.steps = steps
    }

    /// The checks among the steps, in order.
    public var checks: [RoutineCheck] {
        steps.compactMap { if case let .check(check) = $0 { return check } else { return nil } }
    }

    /// The user named `name`.
    /// - Throws: `RoutineError` when the scenario has no such user.
    public func user(_ name: String) throws(RoutineError) -> RoutineUser {
        guard let user = users.first(where: { $0.name == name }) else { throw RoutineError("\(self.name): no user \(name)") }
        return user
    }
}

/// A scenario that cannot be run as written (unknown user or zone, steps out of order).
public struct RoutineError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

// MARK: - The user's clock

/// Local days and minutes of a `RoutineUser` as instants, on the Gregorian calendar of the user's zone.
///
/// ```swift
/// let clock = try RoutineClock(user)
/// let (date, offset) = clock.instant(day: 0, minute: 7 * 60 + 40)   // 07:40 local on the first day
/// ```
public struct RoutineClock: Sendable {
    public let zone: TimeZone
    let calendar: Calendar
    let start: RoutineDate

    /// - Throws: `RoutineError` when the zone name is unknown.
    public init(_ user: RoutineUser) throws(RoutineError) {
        guard let zone = TimeZone(identifier: user.timeZone) else { throw RoutineError("user \(user.name): unknown time zone \(user.timeZone)") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.zone = zone
        self.calendar = calendar
        self.start = user.start
    }

    /// The local calendar date of day `index` (0 = the first day).
    func date(ofDay index: Int) -> DateComponents {
        let first = calendar.date(from: DateComponents(year: start.year, month: start.month, day: start.day, hour: 12))!
        let noon = calendar.date(byAdding: .day, value: index, to: first)!
        return calendar.dateComponents([.year, .month, .day, .weekday], from: noon)
    }

    /// The weekday of day `index` (1 = Sunday ... 7 = Saturday).
    public func weekday(ofDay index: Int) -> Int { date(ofDay: index).weekday! }

    /// The instant of `minute` (may be negative or past 1439: it moves to the day before or after) on day `index`,
    /// and the zone's offset then (seconds east of UTC). Wall-clock time: 07:40 stays 07:40 across a DST change.
    public func instant(day index: Int, minute: Int) -> (date: Date, utcOffset: Int) {
        let shift = Int((Double(minute) / 1440).rounded(.down))
        let local = minute - shift * 1440
        var components = date(ofDay: index + shift)
        components.weekday = nil
        components.hour = local / 60
        components.minute = local % 60
        let date = calendar.date(from: components)!
        return (date, zone.secondsFromGMT(for: date))
    }

    /// "Sat 2026-10-17 07:38" for a person.
    public func text(day index: Int, minute: Int) -> String {
        let (date, _) = instant(day: index, minute: minute)
        let parts = calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute], from: date)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return String(format: "%@ %04d-%02d-%02d %02d:%02d", names[parts.weekday! - 1], parts.year!, parts.month!, parts.day!,
                      parts.hour!, parts.minute!)
    }
}

// MARK: - The log generator

extension RoutineUser {
    /// The user's generated donations for days `days`, in date order: each habit kept on a day at its
    /// jittered time, then the noise. Deterministic: the same `seed` gives the same log; each day draws
    /// from its own stream (`SeededGenerator.derived`), so the training days do not depend on `liveDays`.
    /// Each donation has an identifier `routine-USER-DAY-N`, so identical launches stay distinct donations.
    /// - Throws: `RoutineError` when the zone is unknown.
    public func donations(days: Range<Int>, seed: UInt64) throws(RoutineError) -> [Donation] {
        let clock = try RoutineClock(self)
        let userSeed = name.utf8.reduce(seed) { ($0 &* 0x100_0000_01B3) ^ UInt64($1) }
        var donations: [Donation] = []
        for day in days {
            var random = SeededGenerator.derived(seed: userSeed, UInt64(day))
            let weekday = clock.weekday(ofDay: day)
            var made: [(RoutineAction, Int, [String: String], Int)] = []
            for habit in habits where habit.isKept(onDay: day, weekday: weekday) {
                let jitter = random.integer(in: -habit.jitter ... habit.jitter)
                guard random.chance(habit.chance) else { continue }
                made.append((habit.action, habit.minute + jitter, habit.context, habit.count))
            }
            let habitual = made.count
            for noise in self.noise where !noise.apps.isEmpty && noise.to > noise.from {
                let launches: Int
                switch noise.amount {
                case let .perDay(count): launches = count
                case let .share(share): launches = Int((Double(habitual) * share / max(1 - share, 0.01)).rounded())
                }
                for _ in 0 ..< launches {
                    let app = noise.apps[random.integer(in: 0 ... noise.apps.count - 1)]
                    made.append((.open(app), random.integer(in: noise.from ... noise.to - 1), [:], 1))
                }
            }
            for (index, (action, minute, context, count)) in made.enumerated() {
                let (date, offset) = clock.instant(day: day, minute: minute)
                donations.append(Donation(user: name, app: action.app, intent: action.intent, date: date, utcOffset: offset,
                                          identifier: "routine-\(name)-\(day)-\(index)", context: context, count: count))
            }
        }
        return donations.sorted { ($0.date, $0.identifier ?? "") < ($1.date, $1.identifier ?? "") }
    }
}

extension RoutineScenario {
    /// Every user's training log (their first `trainingDays`), in date order.
    public func trainingLog() throws(RoutineError) -> [Donation] {
        var log: [Donation] = []
        for user in users { log += try user.donations(days: 0 ..< user.trainingDays, seed: seed) }
        return log.sorted { $0.date < $1.date }
    }

    /// Every user's live days (donated after training), in date order.
    public func liveLog() throws(RoutineError) -> [Donation] {
        var log: [Donation] = []
        for user in users { log += try user.donations(days: user.trainingDays ..< user.trainingDays + user.liveDays, seed: seed) }
        return log.sorted { $0.date < $1.date }
    }
}
