import Foundation
import ProactiveCore

// MARK: - In-memory store

/// A `DonationStore` in process memory with the same semantics as
/// `SQLiteDonationStore` (same validation, order, counts and errors), for
/// tests and short-lived tools. Thread-safe; nothing persists.
package final class InMemoryDonationStore: DonationStore, DonationRecordAppender, @unchecked Sendable {
    // @unchecked: all mutable state is behind `lock`.
    private let lock = NSLock()
    private var state = State()

    package init() {}

    /// Rows and indexes, a value so a transaction can work on a copy.
    private struct State {
        /// Rows keyed by insertion order (the SQLite rowid's role).
        var rows: [Int64: DonationRecord] = [:]
        var nextRowID: Int64 = 1
        /// Row of each `(app, identifier)`.
        var identifiers: [AppIdentifier: Int64] = [:]
        /// Row of each content key (the SQLite index `donation_user_date_content`).
        var contents: [ContentKey: Int64] = [:]
        var timeZones: [String: String] = [:]

        struct AppIdentifier: Hashable {
            var app: String
            var identifier: String
        }

        struct ContentKey: Hashable {
            var user: String
            var dateMilliseconds: Int64
            var contentHash: Int64

            init(_ record: DonationRecord) {
                (user, dateMilliseconds, contentHash) = (record.user, record.dateMilliseconds, record.contentHash)
            }
        }

        /// All-or-nothing: on a duplicate with `.fail`, `self` is unchanged.
        mutating func insert(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            var staged = self
            var result = AppendResult()
            for record in records {
                let content = ContentKey(record)
                if let identifier = record.identifier {
                    let key = AppIdentifier(app: record.app, identifier: identifier)
                    if staged.identifiers[key] != nil {
                        guard duplicates == .skip else { throw DonationStoreChecks.duplicate(record) }
                        result.duplicates += 1
                        continue
                    }
                }
                if staged.contents[content] != nil {
                    guard duplicates == .skip else { throw DonationStoreChecks.sameDonation(record) }
                    result.duplicates += 1
                    continue
                }
                if let identifier = record.identifier {
                    staged.identifiers[AppIdentifier(app: record.app, identifier: identifier)] = staged.nextRowID
                }
                staged.contents[content] = staged.nextRowID
                staged.rows[staged.nextRowID] = record
                staged.nextRowID += 1
                result.inserted += 1
            }
            self = staged
            return result
        }

        mutating func remove(where predicate: (DonationRecord) -> Bool) -> Int {
            let doomed = rows.filter { predicate($0.value) }
            for (rowID, record) in doomed {
                rows[rowID] = nil
                contents[ContentKey(record)] = nil
                if let identifier = record.identifier { identifiers[AppIdentifier(app: record.app, identifier: identifier)] = nil }
            }
            return doomed.count
        }
    }

    private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    // MARK: Appending

    package func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        try appendEncoded(donations.map { donation throws(StoreError) in try DonationRecord(donation) }, duplicates: duplicates)
    }

    func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        do {
            return try withState { state in try state.insert(records, duplicates: duplicates) }
        } catch {
            throw error as! StoreError  // insert throws only StoreError
        }
    }

    package func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result {
        try withState { state in
            let transaction = TransactionAppender(state: state)
            let result = try body(transaction)
            state = transaction.state
            return result
        }
    }

    /// Appends to a private copy of the state that replaces the store's on commit.
    private final class TransactionAppender: DonationAppender, DonationRecordAppender {
        var state: State

        init(state: State) { self.state = state }

        func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try appendEncoded(donations.map { donation throws(StoreError) in try DonationRecord(donation) }, duplicates: duplicates)
        }

        func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try state.insert(records, duplicates: duplicates)
        }
    }

    // MARK: Deleting

    package func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int {
        withState { state in
            switch deletion {
            case let .identifiers(identifiers, app):
                let wanted = Set(identifiers)
                return state.remove { IdentifierRules.same($0.app, app) && $0.identifier.map(wanted.contains) == true }
            case let .group(group, app):
                return state.remove { IdentifierRules.same($0.app, app) && $0.group.map { IdentifierRules.same($0, group) } == true }
            case let .matching(filter):
                return state.remove(where: filter.matches)
            }
        }
    }

    // MARK: Reading

    /// Matching rows in export order (user, date, insertion order).
    private func sortedRows(matching filter: DonationFilter) -> [(rowID: Int64, record: DonationRecord)] {
        let rows = withState { state in state.rows.filter { filter.matches($0.value) } }
        return rows.map { (rowID: $0.key, record: $0.value) }.sorted {
            ($0.record.user, $0.record.dateMilliseconds, $0.rowID) < ($1.record.user, $1.record.dateMilliseconds, $1.rowID)
        }
    }

    package func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation] {
        try sortedRows(matching: DonationFilter(user: user, dates: dates)).map { row throws(StoreError) in try row.record.donation() }
    }

    package func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage {
        try DonationStoreChecks.validatePageLimit(limit)
        var rows = sortedRows(matching: filter)
        if let cursor {
            rows = rows.filter { ($0.record.user, $0.record.dateMilliseconds, $0.rowID) > (cursor.user, cursor.dateMilliseconds, cursor.rowID) }
        }
        let page = rows.prefix(limit)
        let next = page.count < limit ? nil : page.last.map {
            DonationCursor(user: $0.record.user, dateMilliseconds: $0.record.dateMilliseconds, rowID: $0.rowID)
        }
        return DonationPage(donations: try page.map { row throws(StoreError) in try row.record.donation() }, next: next)
    }

    package func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics {
        var accumulator = DonationStatistics.Accumulator()
        withState { state in
            for record in state.rows.values where filter.matches(record) { accumulator.add(record) }
        }
        return accumulator.statistics
    }

    package func users() throws(StoreError) -> [String] {
        withState { state in Set(state.rows.values.map(\.user)).sorted() }
    }

    // MARK: User settings

    package func timeZone(forUser user: String) throws(StoreError) -> String? {
        withState { state in state.timeZones[user] }
    }

    package func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError) {
        try DonationStoreChecks.validateTimeZone(identifier, user: user)
        withState { state in state.timeZones[user] = identifier }
    }
}
