import Foundation
import ProactiveCore

// MARK: - Summary of one device-log import

/// What a device-log reader kept, dropped and why.
///
/// Readers never stop at a bad row: the row is named in `problems` (the first
/// `DeviceLogSummary.problemLimit` of them) and counted, and reading goes on,
/// the same discipline as the JSONL importer.
package struct DeviceLogSummary: Sendable, Equatable {
    /// How many problems are kept verbatim; the rest are only counted.
    package static let problemLimit = 20

    /// The reader's format name (`android-usage`, `knowledgec`).
    package var format: String
    /// Rows read from the source table(s).
    package var rowsRead = 0
    /// Donations produced.
    package var kept = 0
    /// Rows deliberately left out, by reason ("launcher or System UI": 1151).
    package var dropped: [String: Int] = [:]
    /// Rows that are not what this reader converts, by kind ("event type 2": 2872,
    /// "stream /display/isBacklit": 5). Counted, never fatal.
    package var skipped: [String: Int] = [:]
    /// Malformed rows, named (first `problemLimit`).
    package var problems: [DeviceLogProblem] = []
    /// All malformed rows.
    package var problemCount = 0
    /// Extra facts worth a line ("intent metadata columns absent").
    package var notes: [String] = []

    package init(format: String) { self.format = format }

    mutating func drop(_ reason: String) { dropped[reason, default: 0] += 1 }
    mutating func skip(_ kind: String) { skipped[kind, default: 0] += 1 }
    mutating func record(_ problem: DeviceLogProblem) {
        problemCount += 1
        if problems.count < Self.problemLimit { problems.append(problem) }
    }

    /// Human-readable lines, most important first.
    ///
    /// ```
    /// android-usage: read 11663 rows, kept 700 donations
    ///   dropped 1151: launcher or System UI
    /// ```
    package func lines(source: String) -> [String] {
        var out = ["\(format): read \(rowsRead) rows, kept \(kept) donation\(kept == 1 ? "" : "s")"]
        for (reason, count) in dropped.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            out.append("  dropped \(count): \(reason)")
        }
        for (kind, count) in skipped.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            out.append("  skipped \(count): \(kind)")
        }
        if problemCount > 0 {
            out.append("  \(problemCount) malformed row\(problemCount == 1 ? "" : "s") skipped:")
            for problem in problems { out.append("    \(source): \(problem)") }
            if problemCount > problems.count { out.append("    ... and \(problemCount - problems.count) more") }
        }
        for note in notes { out.append("  note: \(note)") }
        return out
    }
}

/// One malformed source row: where it is and what is wrong with which field.
///
/// `description` reads `events row 9571: timestamp: reason`, ready to follow `FILE: `.
public struct DeviceLogProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The row, e.g. `events row 9571` or `ZOBJECT row 12`.
    public var row: String
    public var error: DonationLineError

    public init(row: String, error: DonationLineError) {
        self.row = row
        self.error = error
    }

    public var description: String { "\(row): \(error)" }
}
