import Foundation
import ProactiveCore

// MARK: - Options

/// How an import writes to the store.
public struct ImportOptions: Sendable, Hashable {
    /// Stop at the first bad line and store nothing from that source.
    public var strict: Bool
    /// Donations per transaction (non-strict) or per savepoint (strict).
    public var batchSize: Int
    /// What to do with a donation whose `(app, identifier)`, or the same donation, is already stored.
    public var duplicates: DuplicatePolicy
    /// Leave out (and count) donations already older than their retention
    /// window; nil stores every date.
    public var retention: ImportRetention?

    /// 20,000: a commit rewrites every page the batch dirtied (about one index leaf per
    /// active user plus the new rows), so larger batches write less WAL per donation;
    /// 5,000 cost about 1 s more CPU per 1,000,000 donations. Memory: a few MB of records.
    public static let defaultBatchSize = 20_000

    public init(strict: Bool = false, batchSize: Int = ImportOptions.defaultBatchSize, duplicates: DuplicatePolicy = .skip,
                retention: ImportRetention? = nil) {
        self.strict = strict
        self.batchSize = batchSize
        self.duplicates = duplicates
        self.retention = retention
    }
}

// MARK: - Session

/// Collects one source's donations and rejections and writes them in
/// batches, counting everything for the summary and progress.
///
/// A format reader (JSON Lines, and later other log formats) calls
/// `countLine`, then `add` or `reject` or `skipEmptyLine` for each record;
/// `DonationImporter.run` owns the session, the transactions and the
/// strict-mode rule. Memory: one batch of donations, encoded for the store
/// (`DonationRecord`, a few hundred bytes each).
package final class ImportSession {
    package let source: String
    package let options: ImportOptions
    /// Bytes of the source consumed so far (the reader updates it).
    package var bytesRead: Int64 = 0
    package let totalBytes: Int64?

    private let appender: any DonationAppender
    /// True when each batch is its own transaction (non-strict imports).
    private let commitsEachBatch: Bool
    private let onProgress: ((ImportProgress) -> Void)?
    /// `options.retention`, nil when it keeps everything (no check per donation).
    private let retention: ImportRetention?
    private var batch: [DonationRecord] = []
    private(set) var summary = ImportSummary()
    private(set) var committed = 0
    private var linesAtLastReport = 0

    /// Thrown by `reject` in strict mode; unwinds the source's transaction.
    struct StrictAbort: Error {
        let message: String
    }

    init(source: String, totalBytes: Int64?, options: ImportOptions, appender: any DonationAppender,
         commitsEachBatch: Bool, onProgress: ((ImportProgress) -> Void)?) {
        self.source = source
        self.totalBytes = totalBytes
        self.options = options
        self.appender = appender
        self.commitsEachBatch = commitsEachBatch
        self.onProgress = onProgress
        retention = options.retention.flatMap { $0.keepsEverything ? nil : $0 }
        summary.sources = [source]
        batch.reserveCapacity(options.batchSize)
    }

    // MARK: Records

    /// Counts one line (or record) read from the source.
    package func countLine() {
        summary.lines += 1
        // Lines without a commit (rejections, duplicates) still move the progress line.
        if summary.lines - linesAtLastReport > options.batchSize { reportProgress() }
    }

    package func skipEmptyLine() { summary.emptyLines += 1 }

    /// Queues a donation; writes the batch when it is full.
    /// - Throws: `.invalidDonation` when the store would refuse the donation
    ///   (the import stops, as when the store refuses a batch), or what
    ///   writing the batch throws.
    package func add(_ donation: Donation) throws(StoreError) {
        try add(DonationRecord(donation))
    }

    /// Queues a donation already encoded (by the JSON Lines decoding thread),
    /// or counts it without storing it when it is older than its retention window.
    func add(_ record: DonationRecord) throws(StoreError) {
        if let retention, retention.isExpired(app: record.app, dateMilliseconds: record.dateMilliseconds) {
            summary.olderThanRetention += 1
            summary.olderThanRetentionByApp[record.app, default: 0] += 1
            return
        }
        batch.append(record)
        if batch.count >= options.batchSize { try flush() }
    }

    /// Notes the user's zone a line states (`timezone`), applied when the source is imported.
    package func noteTimeZone(_ zone: String, user: String, line: Int) {
        if summary.timeZones[user] == nil { summary.timeZones[user] = ImportSummary.StatedZone(zone: zone, line: line) }
    }

    /// Counts a field a stored line carried that the format does not define (ignored, not stored).
    package func noteUnknownField(_ name: String, line: Int) {
        summary.unknownFields[name, default: ImportSummary.UnknownField(source: source, firstLine: line)].lines += 1
    }

    /// Records a bad line as `SOURCE:LINE: field: reason`.
    /// - Throws: in strict mode, always (the import of this source stops).
    package func reject(line: Int, _ error: DonationLineError) throws {
        let message = "\(source):\(line): \(error.description)"
        summary.recordRejection(message, category: error.category)
        if options.strict { throw StrictAbort(message: message) }
    }

    // MARK: Writing

    /// Writes the pending batch (one transaction, or one savepoint in strict mode).
    func flush() throws(StoreError) {
        guard !batch.isEmpty else { return }
        let result = try appender.append(records: batch, duplicates: options.duplicates)
        batch.removeAll(keepingCapacity: true)
        summary.imported += result.inserted
        summary.duplicates += result.duplicates
        if commitsEachBatch { committed = summary.imported }
        reportProgress()
    }

    /// Called once the enclosing transaction of a strict import committed.
    func markCommitted() {
        committed = summary.imported
        reportProgress()
    }

    /// Called when the enclosing transaction was rolled back: nothing stays.
    func markRolledBack(abortedBy message: String?) {
        summary.imported = 0
        summary.duplicates = 0
        summary.olderThanRetention = 0
        summary.olderThanRetentionByApp = [:]
        summary.abortedBy = message
        committed = 0
    }

    func finishedSummary() -> ImportSummary {
        var result = summary
        result.bytesRead = bytesRead
        return result
    }

    func reportProgress() {
        linesAtLastReport = summary.lines
        onProgress?(ImportProgress(
            source: source, bytesRead: bytesRead, totalBytes: totalBytes, lines: summary.lines,
            imported: summary.imported, duplicates: summary.duplicates, rejected: summary.rejected, committed: committed))
    }
}
