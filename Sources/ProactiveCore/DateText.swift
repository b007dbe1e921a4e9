import Foundation

// MARK: - Dates people write

/// A date as a person writes it for a command-line flag, a query parameter or
/// a body field, before it is read on anyone's clock:
///
/// - `2026-11-20T07:30:00-08:00` (an offset or `Z`): an instant, whatever clock reads it;
/// - `1795705331` (Unix seconds): an instant;
/// - `2026-11-20T07:30` or `2026-11-20 07:30` (no offset): a wall time on the reader's clock;
/// - `2026-11-20`: a calendar day, meaning its first instant on the reader's clock.
///
/// `Engine.readDate` applies the user's clock; `resolve(offsetAt:)` any clock.
public enum DateText: Sendable, Equatable {
    /// An instant and the offset it was written with (nil for Unix seconds).
    case instant(Date, utcOffset: Int?)
    /// A wall time without an offset: the written day and time counted as if in UTC.
    case wallTime(localSeconds: Double)
    /// A calendar day: its midnight counted as if in UTC.
    case day(localSeconds: Double)

    /// - Throws: a `DonationLineError` on the field `date` quoting `text` unchanged.
    public static func parse(_ text: String) throws(DonationLineError) -> DateText {
        if let seconds = Double(text), text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
            return .instant(Date(timeIntervalSince1970: try Timestamp.validateUnixSeconds(seconds)), utcOffset: nil)
        }
        let written = try Timestamp.parseWritten(text)
        if let offset = written.utcOffsetSeconds {
            return .instant(Date(timeIntervalSince1970: written.localSeconds - Double(offset)), utcOffset: offset)
        }
        return written.hasTime ? .wallTime(localSeconds: written.localSeconds) : .day(localSeconds: written.localSeconds)
    }

    /// Whether the text stated its own instant (an offset, `Z` or Unix seconds).
    public var isInstant: Bool {
        if case .instant = self { return true }
        return false
    }

    /// The instant on a clock whose offset at an instant is `offsetAt`, and whether the written
    /// wall time exists on it (false inside a daylight-saving gap; the instant is then read
    /// with the offset after the change). An instant is returned as it is.
    public func resolve(offsetAt: (Date) throws -> Int) rethrows -> (date: Date, exists: Bool) {
        let local: Double
        switch self {
        case let .instant(date, _): return (date, true)
        case let .wallTime(seconds), let .day(seconds): local = seconds
        }
        // The offset at the wall time, refined once (across a daylight-saving change).
        let asUTC = Date(timeIntervalSince1970: local)
        let first = try offsetAt(asUTC)
        let refined = try offsetAt(asUTC.addingTimeInterval(-Double(first)))
        let instant = asUTC.addingTimeInterval(-Double(refined))
        return (instant, try offsetAt(instant) == refined)
    }
}
