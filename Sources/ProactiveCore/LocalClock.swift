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

        @inlinable
        public init(minuteOfDay: Double, weekday: Int, day: Int) {
            (self.minuteOfDay, self.weekday, self.day) = (minuteOfDay, weekday, day)
        }
    }

    /// The UTC offset (seconds) that applies to `date`.
    @inlinable  // read per logged use by the reasons and the signals: worth inlining across modules
    public func offset(at date: Date, writtenOffset: Int?) -> Int {
        if let timeZone { return timeZone.secondsFromGMT(for: date) }
        return writtenOffset ?? 0
    }

    /// The first instant of a local calendar day (`days` since 1970-01-01 on
    /// the local clock) in a zone whose offset at an instant is `offsetAt`:
    /// local midnight, or the end of a DST gap that swallows midnight. Days
    /// are 23, 24 or 25 hours long across DST changes.
    public static func startOfDay(_ days: Int, offsetAt: (Date) -> Int) -> Date {
        let midnight = Double(days) * 86_400  // local midnight as if it were UTC
        // Offsets in force around the day (no zone changes twice within 36 hours).
        let before = offsetAt(Date(timeIntervalSince1970: midnight - 36 * 3600))
        let after = offsetAt(Date(timeIntervalSince1970: midnight + 36 * 3600))
        // Midnight at an offset is real when that offset is in force there; the earlier one when both are (a repeated hour).
        let real = [before, after].map { (offset: $0, instant: Date(timeIntervalSince1970: midnight - Double($0))) }
            .filter { offsetAt($0.instant) == $0.offset }
            .min { $0.instant < $1.instant }
        // Midnight in a gap (the clock jumps over it): the day starts where the gap ends.
        return real?.instant ?? Date(timeIntervalSince1970: midnight - Double(before))
    }

    @inlinable
    public func read(_ date: Date, writtenOffset: Int? = nil) -> Reading {
        let local = date.timeIntervalSince1970 + Double(offset(at: date, writtenOffset: writtenOffset))
        let day = Int((local / 86_400).rounded(.down))
        let minute = (local - Double(day) * 86_400) / 60
        // 1970-01-01 was a Thursday (ISO weekday index 3).
        let weekday = ((day % 7) + 7 + 3) % 7
        return Reading(minuteOfDay: minute, weekday: weekday, day: day)
    }
}
