import Foundation
import ProactiveCore

// MARK: - Appending

/// Something donations can be appended to: a store (each call is its own
/// transaction) or an open transaction (`DonationStore.inOneTransaction`).
public protocol DonationAppender {
    /// Appends a batch. On a store the batch is one transaction: all rows or none.
    /// - Parameter duplicates: what to do with a donation whose `(app, identifier)`
    ///   is already stored, or that is the same donation as one stored
    ///   (`DonationRecord+ContentKey`), or that appears earlier in the batch.
    /// - Throws: `StoreError` (`.invalidDonation`, `.duplicateIdentifier` or
    ///   `.duplicateDonation` with `.fail`, `.database`); nothing from the batch is stored.
    /// - Complexity: O(n log m) for n donations into a store of m.
    @discardableResult
    func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult

    /// Appends each donation on its own, duplicates skipped (a batch whose good
    /// donations are kept): per donation, true when stored, false when a
    /// duplicate, or why it was refused (`.invalidDonation`). Other errors throw.
    func appendEach(_ donations: [Donation]) throws(StoreError) -> [Result<Bool, StoreError>]

    /// `appendEach` of donations encoded and checked before the transaction (`PreparedDonations`).
    func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>]
}

/// Donations encoded and checked ahead of a write (for `DonationAppender.appendEach(prepared:)`):
/// the per-donation work of storing done before the write lock is taken, so concurrent
/// batches (the service's) hold it only for the inserts.
public struct PreparedDonations: Sendable {
    public let donations: [Donation]
    /// Per donation: its record, or why the store refuses it (`.invalidDonation`).
    package let encoded: [Result<DonationRecord, StoreError>]

    public init(_ donations: [Donation]) {
        self.donations = donations
        encoded = donations.map { donation in Result { () throws(StoreError) in try DonationRecord(donation) } }
    }
}

extension PreparedDonations {
    /// Per donation, in order: why the encoding refused it (`.invalidDonation`), else what `write`
    /// answered for its record. `write` gets the records the encoding accepted, in order, and answers
    /// one value each (true: stored, false: a duplicate); it is called also when there are none.
    /// - Throws: an encoding error other than `.invalidDonation`, or what `write` throws.
    package func answers(_ write: ([DonationRecord]) throws(StoreError) -> [Bool]) throws(StoreError) -> [Result<Bool, StoreError>] {
        var records: [DonationRecord] = []
        var outcomes: [Result<Bool, StoreError>?] = []
        records.reserveCapacity(encoded.count)
        outcomes.reserveCapacity(encoded.count)
        for encoded in encoded {
            switch encoded {
            case let .success(record):
                records.append(record)
                outcomes.append(nil)
            case let .failure(error) where error.code == .invalidDonation:
                outcomes.append(.failure(error))
            case let .failure(error):
                throw error
            }
        }
        let stored = try write(records)
        var next = stored.makeIterator()
        return outcomes.map { $0 ?? .success(next.next()!) }
    }
}

extension DonationAppender {
    /// `appendEach` of the donations (stores without a cheaper path encode them again).
    public func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] {
        try appendEach(prepared.donations)
    }

    /// One `append` per donation.
    public func appendEach(_ donations: [Donation]) throws(StoreError) -> [Result<Bool, StoreError>] {
        var outcomes: [Result<Bool, StoreError>] = []
        outcomes.reserveCapacity(donations.count)
        for donation in donations {
            do { outcomes.append(.success(try append([donation], duplicates: .skip).inserted == 1)) } catch where error.code == .invalidDonation {
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }
}

// MARK: - Store

/// Where donations live: per-user histories, deletable the ways apps delete
/// them, countable, exportable in a stable order.
///
/// ```swift
/// let store = try SQLiteDonationStore(path: "proactive.sqlite")   // or InMemoryDonationStore()
/// try store.append([donation], duplicates: .skip)
/// let history = try store.donations(forUser: "u1", in: DateSpan(start: lastWeek))
/// try store.delete(.group("san-diego", app: "com.example.weather"))
/// ```
///
/// Both implementations pass the same conformance suite: same validation,
/// same order, same counts, same errors. Dates are stored at millisecond
/// resolution. Every method throws only `StoreError`.
public protocol DonationStore: DonationAppender, Sendable {
    /// Runs `body` in one transaction: everything appended through the
    /// appender it receives is stored when `body` returns, nothing if it
    /// throws (its error is rethrown unchanged) or if the process dies first.
    /// `body` must not call the store itself (that would deadlock).
    func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result

    /// Runs `body`, which writes many donations through this store's usual
    /// calls (an import), with the store tuned for bulk loading, and puts
    /// the tuning back afterwards. Nothing else changes: every append is
    /// still its own transaction. The default runs `body` as it is; the
    /// SQLite store enlarges its page cache and spaces out WAL checkpoints
    /// (`ProactiveDatabase.bulkTuned`). Errors of `body` pass unchanged.
    func bulkLoading<Result>(_ body: () throws -> Result) rethrows -> Result

    /// Stores several prepared batches, each donation on its own as `appendEach(prepared:)` does
    /// (the group commit of concurrent callers' batches): a batch whose write fails is answered
    /// with its error and stores nothing, the others are stored when this returns. Per batch, in
    /// order: its per-donation answers, or why it failed. The default writes each batch in a
    /// transaction of its own; a store that can commits them in one.
    /// - Throws: when no batch could be written at all (then none is stored).
    func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>]

    /// Deletes what `deletion` names and returns how many rows went.
    @discardableResult
    func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int

    /// One user's donations in `dates`, oldest first (ties in insertion order).
    func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation]

    /// Up to `limit` donations matching `filter` in export order (user, date,
    /// insertion order), starting after `cursor` (nil: from the start).
    /// Pages never skip or repeat a donation that stays in the store.
    /// - Throws: `.invalidRequest` when `limit < 1`.
    func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage

    /// Counts per app, intent and user, and the date span, of what `filter` matches.
    func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics

    /// Every user with at least one donation, sorted.
    func users() throws(StoreError) -> [String]

    /// The IANA time zone configured for `user`, if any.
    func timeZone(forUser user: String) throws(StoreError) -> String?

    /// Configures (or with nil, clears) the time zone whose clock `user`'s
    /// donations are read in.
    /// - Throws: `.invalidRequest` for an empty user or an unknown zone.
    func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError)
}

// MARK: - Conveniences

extension DonationStore {
    public func bulkLoading<Result>(_ body: () throws -> Result) rethrows -> Result {
        try body()
    }

    public func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>] {
        batches.map { batch in
            do {
                return .success(try inOneTransaction { appender in try appender.appendEach(prepared: batch) })
            } catch {
                return .failure(error as? StoreError ?? StoreError(.database, "appending \(batch.donations.count) donations: \(error)"))
            }
        }
    }

    /// Appends one donation.
    @discardableResult
    public func append(_ donation: Donation, duplicates: DuplicatePolicy = .fail) throws(StoreError) -> AppendResult {
        try append([donation], duplicates: duplicates)
    }

    /// Visits every donation matching `filter` in export order, reading
    /// `pageSize` at a time (memory stays bounded by one page).
    public func forEachDonation(matching filter: DonationFilter = .everything, pageSize: Int = 1000,
                                _ body: (Donation) throws -> Void) throws {
        var cursor: DonationCursor?
        repeat {
            let page = try page(matching: filter, after: cursor, limit: pageSize)
            for donation in page.donations { try body(donation) }
            cursor = page.next
        } while cursor != nil
    }

    /// Total rows matching `filter`.
    public func count(matching filter: DonationFilter = .everything) throws(StoreError) -> Int {
        try statistics(matching: filter).rows
    }

    /// Takes `zone` as `user`'s zone when none is configured (what a donation line's `timezone`,
    /// written by `export`, asks): nil when it was set or already was the user's; else a warning
    /// for a person saying the configured zone was kept.
    public func adoptTimeZone(_ zone: String, forUser user: String) throws(StoreError) -> String? {
        switch try timeZone(forUser: user) {
        case nil:
            try setTimeZone(zone, forUser: user)
            return nil
        case zone?: return nil
        case let configured?:
            return "user \(user)'s zone is \(configured); the \(zone) the donations state was not taken "
                + "(proactive users timezone set \(user) \(zone) takes it)"
        }
    }

    /// The time zone configured for `user` as a `TimeZone` (nil when none is set).
    public func configuredTimeZone(forUser user: String) throws(StoreError) -> TimeZone? {
        try timeZone(forUser: user).flatMap(TimeZone.init(identifier:))
    }
}

// MARK: - Shared checks

package enum DonationStoreChecks {
    package static func validatePageLimit(_ limit: Int) throws(StoreError) {
        guard limit >= 1 else { throw StoreError(.invalidRequest, "a page needs a limit >= 1, found \(limit)") }
    }

    package static func validateTimeZone(_ identifier: String?, user: String) throws(StoreError) {
        guard !user.isEmpty else { throw StoreError(.invalidRequest, "a time zone needs a non-empty user") }
        if let identifier, TimeZone(identifier: identifier) == nil {
            throw StoreError(.invalidRequest, "unknown time zone \"\(identifier)\" (use an IANA name such as America/New_York)")
        }
    }

    package static func duplicate(_ record: DonationRecord) -> StoreError {
        StoreError(.duplicateIdentifier, "app \(record.app) already has a donation with identifier \"\(record.identifier ?? "")\"")
    }

    package static func sameDonation(_ record: DonationRecord) -> StoreError {
        let date = Timestamp.format(secondsSince1970: Double(record.dateMilliseconds) / 1000, utcOffsetSeconds: record.utcOffset ?? 0)
        return StoreError(.duplicateDonation, "user \(record.user) already has this donation (\(record.app) \(record.intent) at \(date), "
                          + "every field equal); a repeat needs its own identifier, another date, or a count")
    }
}

// MARK: - Encoded appends (import path)

/// An appender that also takes donations already encoded by
/// `DonationRecord.init`: the importer encodes on its decoding thread, so the
/// writing thread only writes. This module's stores and their transaction
/// appenders conform.
protocol DonationRecordAppender {
    func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult
}

extension DonationAppender {
    /// Appends encoded donations (same contract as `append`): directly when
    /// the appender is a `DonationRecordAppender`, else decoded back first.
    func append(records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        if let direct = self as? any DonationRecordAppender { return try direct.appendEncoded(records, duplicates: duplicates) }
        return try append(records.map { record throws(StoreError) in try record.donation() }, duplicates: duplicates)
    }
}
