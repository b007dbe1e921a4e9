import Foundation
import ProactiveCore

// MARK: - Bounds of declared numbers

/// The ranges every date and number of a declaration must fall in, checked
/// when it is declared so that nothing stored can later overflow a clock or a
/// score (the same years as donations: `Timestamp.supportedYears`, in UTC).
enum DeclarationBounds {
    /// The largest radius of a location provider: the Earth's circumference, in metres.
    static let maximumRadius = 40_075_000.0

    static var supportedYears: String { "\(Timestamp.supportedYears.lowerBound)-\(Timestamp.supportedYears.upperBound)" }

    /// - Throws: when `date` is outside the supported years.
    static func checkDate(_ date: Date, path: String) throws(DeclarationError) {
        guard Timestamp.isSupported(date.timeIntervalSince1970) else {
            throw DeclarationError(path: path, reason: "\(date.timeIntervalSince1970) s since 1970 is outside the supported years \(supportedYears) (UTC)")
        }
    }

    /// - Throws: when `start + seconds` is outside the supported years.
    static func checkEnd(of start: Date, after seconds: Double, path: String) throws(DeclarationError) {
        guard Timestamp.isSupported(start.timeIntervalSince1970 + seconds) else {
            throw DeclarationError(path: path, reason: "\(seconds) seconds from the start ends outside the supported years \(supportedYears) (UTC)")
        }
    }
}
