import Foundation
import ProactiveCore

// MARK: - Importer

/// Imports donation logs into a store, streaming, in batches.
///
/// ```swift
/// var importer = DonationImporter(store: store)
/// importer.onProgress = { print("committed \($0.committed)") }
/// let summary = try importer.importJSONLines(path: "donations.jsonl")
/// print(summary.imported, summary.rejected, summary.messages)
/// ```
///
/// - **Memory** is constant in the file size: one read chunk, at most one
///   line of `DonationLineCodec.maximumLineBytes` (longer lines are skipped
///   to their newline unread and rejected), one batch of donations, and the
///   first `ImportSummary.maximumMessages` rejection messages.
/// - **Non-strict** (default): every good line is stored, every bad one is
///   reported as `FILE:LINE: field: reason`. Each batch of
///   `options.batchSize` donations is one transaction; after a crash the
///   store holds exactly the batches whose commit was reported
///   (`ImportProgress.committed`).
/// - **Strict**: the whole source is one transaction (batches are
///   savepoints inside it, dirty pages spill to the WAL so memory stays
///   bounded); the first bad line rolls it back, so nothing from that
///   source is stored, and `summary.abortedBy` names the line. Chosen over
///   validating the file in a first pass: one read, and atomic even if
///   the process dies mid-import.
/// - **Re-import**: donations whose `(app, identifier)` is already stored,
///   and donations equal in every field to a stored one (the content key,
///   `DonationRecord+ContentKey`), are skipped and counted as `duplicates`
///   (`DuplicatePolicy.skip`): re-running an interrupted import, or
///   importing an export into the store it came from, stores nothing twice.
/// - **Retention**: with `options.retention`, donations already older than
///   their app's window are not stored and are counted as `olderThanRetention`.
public struct DonationImporter {
    public var store: any DonationStore
    public var options: ImportOptions
    /// Called after every committed batch, every `batchSize` lines, and at the end of each source.
    public var onProgress: ((ImportProgress) -> Void)?

    public init(store: any DonationStore, options: ImportOptions = ImportOptions(), onProgress: ((ImportProgress) -> Void)? = nil) {
        self.store = store
        self.options = options
        self.onProgress = onProgress
    }

    // MARK: JSON Lines

    /// Imports one JSON Lines file (docs/FORMATS.md); `path` `"-"` reads standard input.
    /// Lines are read, decoded and encoded for the store on a second thread
    /// (`BackgroundLineDecoder`) while this one writes; results are as if
    /// read in order on one thread.
    /// - Throws: `StoreError` when the file cannot be read or the store fails.
    ///   Bad lines are not errors: they are in the summary.
    public func importJSONLines(path: String) throws(StoreError) -> ImportSummary {
        let decoder = BackgroundLineDecoder(path: path, refusingUnknownFields: options.strict)
        defer { decoder.stop() }
        var summary = try run(source: path, totalBytes: LineReader.regularFileSize(path: path)) { session in
            while let chunk = try decoder.next() {
                for (offset, line) in chunk.lines.enumerated() {
                    session.countLine()
                    switch line {
                    case .blank: session.skipEmptyLine()
                    case let .rejected(error): try session.reject(line: chunk.firstLine + offset, error)
                    case let .record(record, extras):
                        for name in extras.unknownFields { session.noteUnknownField(name, line: chunk.firstLine + offset) }
                        if let zone = extras.timeZone { session.noteTimeZone(zone, user: record.user, line: chunk.firstLine + offset) }
                        try session.add(record)
                    case let .refused(error): throw error
                    }
                }
                session.bytesRead = chunk.consumedBytes
            }
        }
        try adoptTimeZones(&summary)
        return summary
    }

    /// Takes the zones the lines stated as their users' when they have none (`adoptTimeZone`),
    /// unless the import stopped (nothing of the source was stored).
    func adoptTimeZones(_ summary: inout ImportSummary) throws(StoreError) {
        guard !summary.aborted else { return }
        for (user, stated) in summary.timeZones.sorted(by: { $0.key < $1.key }) {
            if let warning = try store.adoptTimeZone(stated.zone, forUser: user) {
                summary.timeZoneWarnings.append("\(summary.sources.first ?? "-"):\(stated.line): \(warning)")
            }
        }
    }

    // MARK: Any source

    /// Runs one source through a session under the strict / non-strict rule,
    /// with the store tuned for bulk loading (`DonationStore.bulkLoading`).
    /// Format readers call this with a closure that feeds the session.
    /// - Throws: `StoreError` from the reader or the store (committed batches
    ///   stay in non-strict mode; nothing stays in strict mode).
    package func run(source: String, totalBytes: Int64?, _ produce: (ImportSession) throws -> Void) throws(StoreError) -> ImportSummary {
        guard options.batchSize >= 1 else {
            throw StoreError(.invalidRequest, "the batch size must be >= 1, found \(options.batchSize)")
        }
        var session: ImportSession?
        do {
            try store.bulkLoading {
                try feed(source, totalBytes, produce) { session = $0 }
            }
        } catch let abort as ImportSession.StrictAbort {
            session?.markRolledBack(abortedBy: abort.message)
            session?.reportProgress()
        } catch {
            throw StoreError.wrapping(error, while: "importing \(source)")
        }
        return session!.finishedSummary()
    }

    /// Feeds one source through a session (handed to `started` first): one
    /// transaction in strict mode, one per batch otherwise.
    private func feed(_ source: String, _ totalBytes: Int64?, _ produce: (ImportSession) throws -> Void,
                      started: (ImportSession) -> Void) throws {
        if options.strict {
            var session: ImportSession?
            try store.inOneTransaction { appender in
                let current = makeSession(source, totalBytes, appender, commitsEachBatch: false)
                session = current
                started(current)
                try produce(current)
                try current.flush()
            }
            session?.markCommitted()
        } else {
            let session = makeSession(source, totalBytes, store, commitsEachBatch: true)
            started(session)
            try produce(session)
            try session.flush()
            session.reportProgress()
        }
    }

    private func makeSession(_ source: String, _ totalBytes: Int64?, _ appender: any DonationAppender,
                             commitsEachBatch: Bool) -> ImportSession {
        ImportSession(source: source, totalBytes: totalBytes, options: options, appender: appender,
                      commitsEachBatch: commitsEachBatch, onProgress: onProgress)
    }
}
