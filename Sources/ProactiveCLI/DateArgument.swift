import ArgumentParser
import Foundation
import ProactiveCore

// MARK: - Dates on the command line

/// A date given as an argument: ISO 8601 with an offset or `Z`
/// (`2026-11-20T07:00:00-08:00`), a calendar day (`2026-11-20`, midnight
/// UTC), or Unix seconds (`1795705331`).
struct DateArgument: Sendable {
    var date: Date
    /// The offset the date was written in; nil for Unix seconds.
    var utcOffset: Int?

    static let help = "ISO 8601 (2026-11-20T07:00:00-08:00), a day (2026-11-20, UTC) or Unix seconds"

    /// For `@Option(transform:)`: the thrown error says what is wrong with the text.
    @Sendable static func transform(_ text: String) throws -> DateArgument { try parse(text) }

    init(date: Date, utcOffset: Int?) {
        self.date = date
        self.utcOffset = utcOffset
    }

    /// - Throws: a `DonationLineError` on the field `date` saying what is wrong.
    static func parse(_ text: String) throws(DonationLineError) -> DateArgument {
        if let seconds = Double(text), text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
            return DateArgument(date: Date(timeIntervalSince1970: try Timestamp.validateUnixSeconds(seconds)), utcOffset: nil)
        }
        let isDay = text.count == 10 && text.dropFirst(4).first == "-"
        let parsed = try Timestamp.parse(isDay ? text + "T00:00:00Z" : text)
        return DateArgument(date: Date(timeIntervalSince1970: parsed.secondsSince1970), utcOffset: parsed.utcOffsetSeconds)
    }
}
