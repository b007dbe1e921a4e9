import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Dates on the command line

/// A date given as an argument (`DateText`): ISO 8601 with an offset or `Z`
/// (`2026-11-20T07:00:00-08:00`), Unix seconds (`1795705331`), a local time
/// (`2026-11-20T07:00`) or a calendar day (`2026-11-20`, its local midnight).
/// Local times and days are read on the user's clock when the command has a
/// user (their zone, else the offset of their latest donation), else in UTC;
/// the clock used is printed on standard error.
struct DateArgument: Sendable {
    /// The text as given (quoted unchanged in messages).
    var text: String
    var written: DateText

    static let help = "ISO 8601 (2026-11-20T07:00:00-08:00), a local time (2026-11-20T07:00) or day (2026-11-20) "
        + "on the user's clock (UTC without a user), or Unix seconds"

    /// For `@Option(transform:)`: the thrown error says what is wrong with the text.
    @Sendable static func transform(_ text: String) throws -> DateArgument { try parse(text) }

    /// - Throws: a `DonationLineError` on the field `date` saying what is wrong.
    static func parse(_ text: String) throws(DonationLineError) -> DateArgument {
        DateArgument(text: text, written: try DateText.parse(text))
    }

    /// The instant on `user`'s clock (`Engine.readDate`); a local time or day read without a user is
    /// read in UTC. For a local time or day, `flag` and the clock used are printed on standard error.
    func read(_ engine: Engine?, user: String?, flag: String, zoneOverride: String? = nil) throws -> Engine.ReadDate {
        let reading: Engine.ReadDate
        do {
            if let engine {
                reading = try engine.readDate(written, text: text, user: user, zoneOverride: zoneOverride, field: flag)
            } else {
                let (date, _) = written.resolve(offsetAt: { _ in 0 })
                let offset: Int = if case let .instant(_, written) = written { written ?? 0 } else { 0 }
                reading = Engine.ReadDate(date: date, utcOffset: offset, clock: "UTC (no user given)")
            }
        } catch let error as DonationLineError {
            throw ValidationError("\(flag): \(error.reason)")
        }
        if !written.isInstant {
            printError("note: \(flag) \(text) read as "
                       + "\(Timestamp.format(secondsSince1970: reading.date.timeIntervalSince1970, utcOffsetSeconds: reading.utcOffset)) "
                       + "(clock: \(reading.clock))")
        }
        return reading
    }
}
