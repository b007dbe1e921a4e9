// MARK: - A local day's place in the calendar

/// Where a local day (days since 1970-01-01 on the user's clock, `LocalClock.Reading.day`) sits in the
/// proleptic Gregorian calendar: the month and its length, the weekday, the n-th of that weekday in the
/// month, and the week counted from a Monday. Pure integer arithmetic (no `Calendar`, no time zone: the
/// day number is already local), so it is cheap enough to compute for every day of a history at every
/// question.
///
/// ```swift
/// let day = CalendarDay(day: 20_454)   // 2026-01-01, a Thursday
/// day.dayOfMonth          // 1
/// day.daysToMonthEnd      // 30
/// day.weekday             // 3 (Monday = 0)
/// day.weekdayOrdinal      // 1: the first Thursday of January
/// day.isLastWeekdayOfMonth // false
/// ```
public struct CalendarDay: Sendable, Hashable {
    /// Local days since 1970-01-01.
    public let day: Int
    public let year: Int
    /// 1...12
    public let month: Int
    /// 1...31
    public let dayOfMonth: Int
    /// 28...31
    public let daysInMonth: Int

    public init(day: Int) {
        self.day = day
        // Days to civil date, counting 400-year eras of 146,097 days from 0000-03-01.
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 = March
        dayOfMonth = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        daysInMonth = Self.daysIn(month: month, year: year)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 0 = Monday ... 6 = Sunday (as `LocalClock.Reading.weekday`).
    public var weekday: Int { ((day % 7) + 7 + 3) % 7 }
    public var isWeekend: Bool { weekday >= 5 }
    /// Weeks since the Monday 1969-12-29 (week 0): consecutive weeks differ by one, so `week % 2` is the
    /// parity of "every other week".
    public var week: Int { Int(((Double(day) + 3) / 7).rounded(.down)) }
    /// 0 on the month's last day.
    public var daysToMonthEnd: Int { daysInMonth - dayOfMonth }
    /// 1 for the month's first such weekday, ... 5.
    public var weekdayOrdinal: Int { (dayOfMonth - 1) / 7 + 1 }
    /// Whether no later day of the month has this weekday (the "last Friday").
    public var isLastWeekdayOfMonth: Bool { daysToMonthEnd < 7 }
}
