import Foundation
import ProactiveCore

// MARK: - Focus schedules

/// A Focus that turns itself on at a local time on chosen weekdays, e.g.
/// Work on weekdays 09:00-17:30 in America/Los_Angeles.
///
/// ```swift
/// let work = try FocusSchedule(focus: "Work", weekdays: FocusSchedule.parseWeekdays("Mon-Fri"),
///                              start: FocusSchedule.parseTime("09:00"), end: FocusSchedule.parseTime("17:30"),
///                              timeZone: TimeZone(identifier: "America/Los_Angeles")!)
/// ```
///
/// - An occurrence starts on a listed weekday at `startMinute` (local time)
///   and ends at `endMinute` the same day, or the next day when `endMinute <=
///   startMinute` (Sleep 22:00-07:00 runs past midnight; the weekday is the one
///   it starts on).
/// - Local times are read in `timeZone`, daylight saving included. A local time
///   skipped by a spring-forward change maps to the instant one offset-step later.
public struct FocusSchedule: Sendable, Hashable {
    /// The Focus it turns on (normalized, see `FocusName`).
    public let focus: String
    /// ISO weekdays the occurrences start on: 0 = Monday ... 6 = Sunday. Never empty.
    public let weekdays: Set<Int>
    /// Minutes after local midnight, 0..<1440.
    public let startMinute: Int
    /// Minutes after local midnight, 0..<1440; `<= startMinute` means the next day.
    public let endMinute: Int
    public let timeZone: TimeZone

    /// - Throws: `FocusError` naming the field when the Focus name is empty, no
    ///   weekday is given, a weekday or minute is out of range.
    package init(focus: String, weekdays: Set<Int>, start startMinute: Int, end endMinute: Int, timeZone: TimeZone) throws(FocusError) {
        self.focus = try FocusName.validated(focus)
        guard !weekdays.isEmpty else { throw FocusError(field: "days", reason: "a schedule needs at least one weekday") }
        guard weekdays.allSatisfy({ (0..<7).contains($0) }) else {
            throw FocusError(field: "days", reason: "weekdays are 0 (Monday) ... 6 (Sunday), found \(weekdays.sorted())")
        }
        guard (0..<1440).contains(startMinute) else { throw FocusError(field: "start", reason: "must be 00:00 ... 23:59") }
        guard (0..<1440).contains(endMinute) else { throw FocusError(field: "end", reason: "must be 00:00 ... 23:59") }
        self.weekdays = weekdays
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.timeZone = timeZone
    }

    /// One run of the schedule: `start <= date < end`.
    public struct Occurrence: Sendable, Hashable {
        public var start: Date
        public var end: Date
        public func contains(_ date: Date) -> Bool { start <= date && date < end }
    }

    // MARK: Occurrences and boundaries

    /// The occurrence that covers `date`, if any.
    /// - Complexity: O(1) (two candidate days).
    public func occurrence(containing date: Date) -> Occurrence? {
        let today = LocalClock(timeZone: timeZone).read(date).day
        // An occurrence covering `date` started today or (past midnight) yesterday; prefer the later start.
        for day in [today, today - 1] {
            if let occurrence = occurrence(startingOnLocalDay: day), occurrence.contains(date) { return occurrence }
        }
        return nil
    }

    /// The first instant strictly after `date` at which this schedule starts or ends.
    /// - Complexity: O(1): ten local days are examined (a weekly schedule repeats within eight).
    public func nextBoundary(after date: Date) -> Date? {
        let today = LocalClock(timeZone: timeZone).read(date).day
        var best: Date?
        for day in (today - 1)...(today + 8) {
            guard let occurrence = occurrence(startingOnLocalDay: day) else { continue }
            for boundary in [occurrence.start, occurrence.end] where boundary > date {
                if best == nil || boundary < best! { best = boundary }
            }
        }
        return best
    }

    /// The occurrence starting on a local day (days since 1970-01-01), if that day is a listed weekday.
    public func occurrence(startingOnLocalDay day: Int) -> Occurrence? {
        guard weekdays.contains(Self.weekday(ofLocalDay: day)) else { return nil }
        let start = instant(localDay: day, minute: startMinute)
        let end = endMinute > startMinute ? instant(localDay: day, minute: endMinute) : instant(localDay: day + 1, minute: endMinute)
        return Occurrence(start: start, end: end)
    }

    /// ISO weekday of a local day (1970-01-01 was a Thursday, index 3).
    static func weekday(ofLocalDay day: Int) -> Int { ((day % 7) + 7 + 3) % 7 }

    /// The instant at which the local clock of `timeZone` reads `minute` on `day`.
    func instant(localDay day: Int, minute: Int) -> Date {
        let local = Double(day) * 86_400 + Double(minute) * 60
        var offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local))
        offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local - Double(offset)))
        return Date(timeIntervalSince1970: local - Double(offset))
    }

    // MARK: Text forms

    /// `Mon-Fri 09:00-17:30 America/Los_Angeles` (days in ISO order, ranges collapsed).
    public var summary: String {
        "\(Self.formatWeekdays(weekdays)) \(Self.formatTime(startMinute))-\(Self.formatTime(endMinute)) \(timeZone.identifier)"
    }

    static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Parses `Mon-Fri`, `Mon,Wed,Fri`, `Sat-Sun`, `weekdays`, `weekends`, `daily` (case-insensitive;
    /// a range may wrap, `Fri-Mon`).
    /// - Throws: `FocusError(field: "days")` naming the unknown part.
    package static func parseWeekdays(_ text: String) throws(FocusError) -> Set<Int> {
        switch text.lowercased() {
        case "weekdays": return [0, 1, 2, 3, 4]
        case "weekends", "weekend": return [5, 6]
        case "daily", "everyday", "all": return Set(0..<7)
        default: break
        }
        func day(_ name: Substring) throws(FocusError) -> Int {
            let key = name.trimmingCharacters(in: .whitespaces).prefix(3).lowercased()
            guard key.count == 3, let index = dayNames.firstIndex(where: { $0.lowercased() == key }) else {
                throw FocusError(field: "days", reason: "unknown weekday \"\(name)\" (use Mon ... Sun, a range Mon-Fri, weekdays, weekends or daily)")
            }
            return index
        }
        var days = Set<Int>()
        for part in text.split(separator: ",") {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            switch ends.count {
            case 1: days.insert(try day(ends[0]))
            case 2:
                var current = try day(ends[0])
                let last = try day(ends[1])
                days.insert(current)
                while current != last { current = (current + 1) % 7; days.insert(current) }
            default: throw FocusError(field: "days", reason: "\"\(part)\" is not a weekday or a range like Mon-Fri")
            }
        }
        guard !days.isEmpty else { throw FocusError(field: "days", reason: "no weekday given") }
        return days
    }

    /// `Mon-Fri`, `Mon,Wed`, `daily`.
    public static func formatWeekdays(_ days: Set<Int>) -> String {
        if days.count == 7 { return "daily" }
        let sorted = days.sorted()
        if let first = sorted.first, let last = sorted.last, sorted.count > 2, last - first + 1 == sorted.count {
            return "\(dayNames[first])-\(dayNames[last])"
        }
        return sorted.map { dayNames[$0] }.joined(separator: ",")
    }

    /// Parses `HH:MM` (24-hour) into minutes after midnight.
    package static func parseTime(_ text: String, field: String = "time") throws(FocusError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2,
              (0..<24).contains(hour), (0..<60).contains(minute) else {
            throw FocusError(field: field, reason: "\"\(text)\" is not a time HH:MM (00:00 ... 23:59)")
        }
        return hour * 60 + minute
    }

    public static func formatTime(_ minute: Int) -> String {
        let hour = minute / 60, rest = minute % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}
