import Foundation
import ProactiveCore

// MARK: - Progress

/// Where an import stands; reported after every committed batch.
public struct ImportProgress: Sendable, Hashable {
    /// The source being imported (file path, `-` for standard input).
    public var source: String
    public var bytesRead: Int64
    /// The source's size when known (regular files).
    public var totalBytes: Int64?
    /// Lines (or records) read so far, empty ones included.
    public var lines: Int
    /// Donations handed to the store so far (committed or in the open batch/transaction).
    public var imported: Int
    public var duplicates: Int
    public var rejected: Int
    /// Rows durably committed so far by this import. A crash now leaves
    /// exactly these rows from it in the store (in strict mode 0 until the end).
    public var committed: Int
}

// MARK: - Summary

/// The outcome of importing one or more sources.
///
/// Rejection messages read `FILE:LINE: field: reason`. Only the first
/// `maximumMessages` are kept; `rejected` and `rejectionsByCategory`
/// count all of them.
public struct ImportSummary: Sendable, Hashable {
    public var sources: [String] = []
    public var bytesRead: Int64 = 0
    /// Lines read, empty ones included.
    public var lines = 0
    public var emptyLines = 0
    /// Rows stored by this import.
    public var imported = 0
    /// Donations skipped because their `(app, identifier)`, or the same
    /// donation (`DonationRecord+ContentKey`), was already stored.
    public var duplicates = 0
    /// Donations left out because they were already older than their app's
    /// retention window (`ImportOptions.retention`); never stored.
    public var olderThanRetention = 0
    /// `olderThanRetention` per app.
    public var olderThanRetentionByApp: [String: Int] = [:]
    public var rejected = 0
    /// Rejections per `DonationLineError.category` ("invalid JSON", "missing app", ...).
    public var rejectionsByCategory: [String: Int] = [:]
    /// The first `maximumMessages` rejections, `FILE:LINE: field: reason`.
    public var messages: [String] = []
    /// In strict mode: the rejection that stopped the import. Nothing from
    /// that source was stored.
    public var abortedBy: String?

    /// The zone each user's lines state (`timezone`; the first line's), with where it was first stated.
    public var timeZones: [String: StatedZone] = [:]
    /// After the import: why a stated zone was not taken (the user has another one configured).
    public var timeZoneWarnings: [String] = []

    public struct StatedZone: Sendable, Hashable {
        public var zone: String
        public var line: Int
    }

    /// Fields the format does not define, on lines stored without them (a non-strict import;
    /// a strict one rejects such a line): per name, how many lines and where first.
    public var unknownFields: [String: UnknownField] = [:]

    public struct UnknownField: Sendable, Hashable {
        public var source: String
        public var firstLine: Int
        public var lines = 0
    }

    /// One warning per unknown field, saying what was stored (the lines, counted as stored, without the
    /// field): `FILE:LINE: 3 lines have the field "paramters", which the format does not define (did you
    /// mean "parameters"?); they were stored without it (--strict refuses such lines)`.
    public var unknownFieldWarnings: [String] {
        unknownFields.sorted { $0.key < $1.key }.map { name, field in
            let hint = Spelling.suggestion(for: name, among: DonationLineCodec.fields).map { " (did you mean \"\($0)\"?)" } ?? ""
            let lines = field.lines == 1 ? "1 line has" : "\(field.lines) lines have"
            return "\(field.source):\(field.firstLine): \(lines) the field \"\(name)\", which the format does not define\(hint); "
                + "\(field.lines == 1 ? "it was" : "they were") stored without it (--strict refuses such lines)"
        }
    }

    public static let maximumMessages = 1000

    public init() {}

    /// True when a strict import stopped at a bad line.
    public var aborted: Bool { abortedBy != nil }

    // MARK: Recording

    mutating func recordRejection(_ message: String, category: String) {
        rejected += 1
        rejectionsByCategory[category, default: 0] += 1
        if messages.count < Self.maximumMessages { messages.append(message) }
    }

    /// Adds another source's summary (multi-file imports).
    public mutating func merge(_ other: ImportSummary) {
        sources += other.sources
        bytesRead += other.bytesRead
        lines += other.lines
        emptyLines += other.emptyLines
        imported += other.imported
        duplicates += other.duplicates
        olderThanRetention += other.olderThanRetention
        olderThanRetentionByApp.merge(other.olderThanRetentionByApp, uniquingKeysWith: +)
        rejected += other.rejected
        rejectionsByCategory.merge(other.rejectionsByCategory, uniquingKeysWith: +)
        messages += other.messages.prefix(max(0, Self.maximumMessages - messages.count))
        abortedBy = abortedBy ?? other.abortedBy
        timeZones.merge(other.timeZones) { mine, _ in mine }
        timeZoneWarnings += other.timeZoneWarnings
        unknownFields.merge(other.unknownFields) { mine, theirs in
            var merged = mine
            merged.lines += theirs.lines
            return merged
        }
    }

    /// Rejection categories, most frequent first (ties by name).
    public var sortedCategories: [(category: String, count: Int)] {
        rejectionsByCategory.map { (category: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.category < $1.category }
    }

    /// Messages that were counted but not kept.
    public var unlistedRejections: Int { rejected - messages.count }
}
