import Foundation

// MARK: - Local clock

/// Reads an instant on the user's local clock: minute of day and weekday.
///
/// The offset a donation was written in is used unless a time zone is
/// configured (then the zone's offset at that instant wins, daylight saving
/// included). A date given as Unix seconds with no zone reads as UTC.
public struct LocalClock: Sendable, Hashable {
    /// The configured zone, if any.
    public var timeZone: TimeZone?

    public init(timeZone: TimeZone? = nil) { self.timeZone = timeZone }

    /// A local reading of one instant.
    public struct Reading: Sendable, Hashable {
        /// Minutes since local midnight, 0..<1440 (fractional).
        public var minuteOfDay: Double
        /// 0 = Monday ... 6 = Sunday (ISO order).
        public var weekday: Int
        /// Local days since 1970-01-01.
        public var day: Int
        public var isWeekend: Bool { weekday >= 5 }
    }

    /// The UTC offset (seconds) that applies to `date`.
    public func offset(at date: Date, writtenOffset: Int?) -> Int {
        if let timeZone { return timeZone.secondsFromGMT(for: date) }
        return writtenOffset ?? 0
    }

    public func read(_ date: Date, writtenOffset: Int? = nil) -> Reading {
        let local = date.timeIntervalSince1970 + Double(offset(at: date, writtenOffset: writtenOffset))
        let day = Int((local / 86_400).rounded(.down))
        let minute = (local - Double(day) * 86_400) / 60
        // 1970-01-01 was a Thursday (ISO weekday index 3).
        let weekday = ((day % 7) + 7 + 3) % 7
        return Reading(minuteOfDay: minute, weekday: weekday, day: day)
    }
}
