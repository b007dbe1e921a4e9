import Foundation
import ProactiveCore

// MARK: - Stored Focus rows

/// A stored Focus schedule (see `FocusSchedule` in ProactiveRanking for its meaning).
public struct StoredFocusSchedule: Sendable, Hashable {
    /// The row id, used to remove the schedule.
    public var id: Int64
    /// Normalized Focus name.
    public var focus: String
    /// ISO weekdays, 0 = Monday ... 6 = Sunday.
    public var weekdays: Set<Int>
    public var startMinute: Int
    public var endMinute: Int
    /// IANA time zone identifier.
    public var timeZone: String

    public init(id: Int64 = 0, focus: String, weekdays: Set<Int>, startMinute: Int, endMinute: Int, timeZone: String) {
        self.id = id
        self.focus = focus
        self.weekdays = weekdays
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.timeZone = timeZone
    }

    /// Weekdays as the `weekdays` column's bit mask (bit 0 = Monday).
    package var weekdayMask: Int { weekdays.reduce(0) { $0 | (1 << $1) } }

    package static func weekdays(fromMask mask: Int) -> Set<Int> { Set((0..<7).filter { mask & (1 << $0) != 0 }) }
}

/// A Focus turned on (`focus`) or off (nil) by hand.
public struct StoredFocusChange: Sendable, Hashable {
    public var date: Date
    public var focus: String?

    public init(date: Date, focus: String?) {
        self.date = date
        self.focus = focus
    }
}

/// What an app returned for one Focus: its filter predicate (text form) and badge count.
public struct StoredAppContext: Sendable, Hashable {
    public var app: String
    public var focus: String
    public var filterPredicate: String?
    public var badgeCount: Int?

    public init(app: String, focus: String, filterPredicate: String?, badgeCount: Int?) {
        self.app = app
        self.focus = focus
        self.filterPredicate = filterPredicate
        self.badgeCount = badgeCount
    }
}

/// One app's stored Focus filter: its declaration (JSON text), the values
/// configured per Focus and its app contexts.
public struct StoredFocusFilter: Sendable, Hashable {
    public var app: String
    /// The declaration as JSON text (`FocusFilter.parse` reads it).
    public var declaration: String
    /// Focus -> parameter -> value.
    public var values: [String: [String: ParameterValue]]
    public var contexts: [StoredAppContext]

    public init(app: String, declaration: String, values: [String: [String: ParameterValue]] = [:], contexts: [StoredAppContext] = []) {
        self.app = app
        self.declaration = declaration
        self.values = values
        self.contexts = contexts
    }
}
