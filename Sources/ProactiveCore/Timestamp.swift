import Foundation

// MARK: - ISO 8601 timestamps

/// Parsing and formatting of the donation log's dates without Foundation's
/// formatters (which are slow and locale-dependent).
///
/// Accepted by `parse`: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z`, `±HH:MM` or
/// `±HHMM` (a space may replace `T`); `parseWritten` also reads a bare day and a time without
/// an offset. Years outside `supportedYears` are errors.
public enum Timestamp {
    /// Years a donation date may carry. Outside this range a date is almost
    /// certainly a unit mistake (milliseconds given as seconds, year 0).
    public static let supportedYears: ClosedRange<Int> = 1970...2200

    /// A parsed timestamp: seconds since 1970 (UTC) and the offset it was written in.
    public struct Parsed: Sendable, Equatable {
        public let secondsSince1970: Double
        public let utcOffsetSeconds: Int
    }

    /// - Throws: a reason naming what is wrong (used under the field `date`).
    public static func parse(_ text: String) throws(DonationLineError) -> Parsed {
        let written = try parseWritten(text, offsetRequired: true)
        return Parsed(secondsSince1970: written.localSeconds - Double(written.utcOffsetSeconds ?? 0), utcOffsetSeconds: written.utcOffsetSeconds ?? 0)
    }

    /// A date as written, before any clock is applied: its wall-clock reading as if it were UTC,
    /// the offset it states (nil when it states none), and whether it has a time of day.
    public struct Written: Sendable, Equatable {
        /// The written calendar day and time of day, counted as seconds since 1970 as if the offset were 0.
        public let localSeconds: Double
        /// The stated offset in seconds east of UTC; nil for a wall time or a bare day.
        public let utcOffsetSeconds: Int?
        /// False for a bare day (`2026-11-20`).
        public let hasTime: Bool
    }

    /// Reads `2026-11-20`, `2026-11-20T07:30[:SS[.fraction]]` (a space may replace `T`), each
    /// optionally followed by `Z`, `±HH:MM` or `±HHMM`; with `offsetRequired`, only dates with a
    /// time and an offset. Errors quote `text` as given.
    /// - Throws: a reason naming what is wrong (under the field `date`).
    public static func parseWritten(_ text: String, offsetRequired: Bool = false) throws(DonationLineError) -> Written {
        let bytes = Array(text.utf8)
        var index = 0
        let what = offsetRequired ? "an ISO 8601 date with offset" : "an ISO 8601 date"
        func fail(_ reason: String) -> DonationLineError {
            DonationLineError(field: "date", reason: "\"\(text.prefix(40))\" is not \(what) (\(reason))")
        }
        func digits(_ count: Int) throws(DonationLineError) -> Int {
            guard index + count <= bytes.count else { throw fail("too short") }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { throw fail("expected a digit at position \(index + 1)") }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ character: UInt8, _ what: String) throws(DonationLineError) {
            guard index < bytes.count, bytes[index] == character else { throw fail("expected \(what) at position \(index + 1)") }
            index += 1
        }
        let year = try digits(4)
        try expect(UInt8(ascii: "-"), "'-'")
        let month = try digits(2)
        try expect(UInt8(ascii: "-"), "'-'")
        let day = try digits(2)
        let hasTime = index < bytes.count || offsetRequired
        if hasTime {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") else {
                throw fail("expected 'T' and a time after the date")
            }
            index += 1
        }
        var hour = 0, minute = 0
        if hasTime {
            hour = try digits(2)
            try expect(UInt8(ascii: ":"), "':'")
            minute = try digits(2)
        }
        var second = 0
        var fraction = 0.0
        if hasTime, index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            second = try digits(2)
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { throw fail("a fraction of a second needs digits") }
            }
        }
        guard index < bytes.count || !offsetRequired else {
            throw fail("missing time zone offset: add Z or an offset such as -08:00")
        }
        var offset: Int?
        switch index < bytes.count ? bytes[index] : 0 {
        case 0 where index == bytes.count:
            break
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            offset = 0
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            let offsetHours = try digits(2)
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
            let offsetMinutes = try digits(2)
            guard offsetMinutes < 60, offsetHours * 60 + offsetMinutes <= 18 * 60 else { throw fail("offset out of range") }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            throw fail(offsetRequired ? "missing time zone offset or Z" : "expected Z or an offset such as -08:00 at position \(index + 1)")
        }
        guard index == bytes.count else { throw fail("unexpected characters after the offset") }
        // A local year one off the range can still be an instant inside it (and vice versa): the instant decides below.
        guard (supportedYears.lowerBound - 1...supportedYears.upperBound + 1).contains(year) else {
            throw DonationLineError(field: "date", reason: "year \(year) is outside the supported range \(supportedYears.lowerBound)-\(supportedYears.upperBound)")
        }
        guard (1...12).contains(month) else { throw fail("month \(month) does not exist") }
        guard (1...daysInMonth(year: year, month: month)).contains(day) else { throw fail("day \(day) does not exist in that month") }
        guard hour < 24, minute < 60, second < 61 else { throw fail("time of day out of range") }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        let instant = local - Double(offset ?? 0)
        guard isSupported(instant) else {
            let range = "\(supportedYears.lowerBound)-\(supportedYears.upperBound)"
            guard supportedYears.contains(year) else { throw DonationLineError(field: "date", reason: "year \(year) is outside the supported range \(range)") }
            throw DonationLineError(field: "date", reason: "\"\(text.prefix(40))\" is \(format(secondsSince1970: instant, utcOffsetSeconds: 0)) in UTC, "
                                    + "outside the supported range \(range)")
        }
        return Written(localSeconds: local, utcOffsetSeconds: offset, hasTime: hasTime)
    }

    /// Whole milliseconds since 1970 (UTC) a stored date may hold: the years
    /// `supportedYears` in UTC (the stores' `date_ms` CHECK constraints).
    public static let supportedMilliseconds: ClosedRange<Int64> =
        0...Int64(daysFromCivil(year: supportedYears.upperBound + 1, month: 1, day: 1)) * 86_400_000 - 1

    /// Whether an instant, rounded to the millisecond as the stores keep it, is in `supportedMilliseconds`.
    public static func isSupported(_ secondsSince1970: Double) -> Bool {
        let milliseconds = (secondsSince1970 * 1000).rounded()
        return milliseconds.isFinite && milliseconds >= Double(supportedMilliseconds.lowerBound)
            && milliseconds <= Double(supportedMilliseconds.upperBound)
    }

    /// Validates Unix seconds given as a number.
    public static func validateUnixSeconds(_ seconds: Double) throws(DonationLineError) -> Double {
        guard isSupported(seconds) else {
            throw DonationLineError(field: "date", reason: "Unix time \(seconds) is outside the supported years \(supportedYears.lowerBound)-\(supportedYears.upperBound) (milliseconds given as seconds?)")
        }
        return seconds
    }

    /// Formats seconds since 1970 at the given offset: `2026-11-20T07:02:11-08:00`,
    /// `Z` for offset 0, milliseconds only when not zero.
    public static func format(secondsSince1970: Double, utcOffsetSeconds: Int) -> String {
        var milliseconds = Int64((secondsSince1970 * 1000).rounded())
        milliseconds += Int64(utcOffsetSeconds) * 1000
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        var remainder = milliseconds - days * 86_400_000
        if remainder < 0 { remainder += 86_400_000; days -= 1 }
        let (year, month, day) = civilFromDays(Int(days))
        let hour = Int(remainder / 3_600_000)
        let minute = Int(remainder / 60_000 % 60)
        let second = Int(remainder / 1000 % 60)
        let millis = Int(remainder % 1000)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2)
        if millis != 0 { text += "." + pad(millis, 3) }
        if utcOffsetSeconds == 0 {
            text += "Z"
        } else {
            let magnitude = abs(utcOffsetSeconds)
            text += (utcOffsetSeconds < 0 ? "-" : "+") + pad(magnitude / 3600, 2) + ":" + pad(magnitude / 60 % 60, 2)
        }
        return text
    }

    /// A minute of the day as a 24-hour clock reading, `HH:MM`: `clock(minuteOfDay: 445)` is `"07:25"`.
    /// The minute is taken modulo 1440 (`-15` is `"23:45"`, `1440` is `"00:00"`). Pure Swift, so a
    /// command that prints times does not pay for Foundation's `String(format:)` on its first call.
    public static func clock(minuteOfDay: Int) -> String {
        let wrapped = ((minuteOfDay % 1440) + 1440) % 1440
        return pad(wrapped / 60, 2) + ":" + pad(wrapped % 60, 2)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

// MARK: - Milliseconds

extension Date {
    /// Whole milliseconds since 1970 UTC, rounded: how the store keeps every date. Clamps
    /// instead of trapping on dates far outside the supported years (NaN becomes 0).
    public var millisecondsSince1970: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }

    /// The instant `seconds` after 1970 UTC, rounded to the whole millisecond:
    /// the precision of written dates and of the store's time keys, so that a
    /// date read back from what was written is the date that was read.
    public init(secondsRoundedToMillisecond seconds: Double) {
        self.init(timeIntervalSince1970: (seconds * 1000).rounded() / 1000)
    }

    /// The instant `milliseconds` after 1970 UTC.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
