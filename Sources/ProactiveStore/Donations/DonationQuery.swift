import Foundation
import ProactiveCore

// MARK: - Date ranges

/// A half-open span of time `[start, end)`; a missing bound is open.
///
/// Half-open so that splitting at one instant partitions exactly:
/// `DateSpan(end: t)` and `DateSpan(start: t)` never share a donation.
/// Bounds compare at the store's resolution, whole milliseconds (rounded
/// like `Donation.millisecondsSince1970`).
public struct DateSpan: Sendable, Hashable {
    /// Inclusive lower bound, or nil for "since the beginning".
    public var start: Date?
    /// Exclusive upper bound, or nil for "until the end".
    public var end: Date?

    public init(start: Date? = nil, end: Date? = nil) {
        self.start = start
        self.end = end
    }

    /// Every instant.
    public static let all = DateSpan()

    public var isUnbounded: Bool { start == nil && end == nil }

    package var startMilliseconds: Int64? { start.map(\.millisecondsSince1970) }
    package var endMilliseconds: Int64? { end.map(\.millisecondsSince1970) }

    /// Whether a stored time key (milliseconds since 1970) lies in the span.
    func contains(milliseconds: Int64) -> Bool {
        if let lower = startMilliseconds, milliseconds < lower { return false }
        if let upper = endMilliseconds, milliseconds >= upper { return false }
        return true
    }
}

// MARK: - Filters

/// Which donations an export, a count or a deletion applies to.
/// Every criterion that is set must match; the empty filter matches everything.
public struct DonationFilter: Sendable, Hashable {
    public var user: String?
    public var app: String?
    public var dates: DateSpan

    public init(user: String? = nil, app: String? = nil, dates: DateSpan = .all) {
        self.user = user
        self.app = app
        self.dates = dates
    }

    /// The filter that matches every donation.
    public static let everything = DonationFilter()

    public var matchesEverything: Bool { user == nil && app == nil && dates.isUnbounded }

    func matches(_ record: DonationRecord) -> Bool {
        // Exact comparison, as SQLite compares text (not Unicode equivalence).
        if let user, !IdentifierRules.same(record.user, user) { return false }
        if let app, !IdentifierRules.same(record.app, app) { return false }
        return dates.contains(milliseconds: record.dateMilliseconds)
    }
}

// MARK: - Deletions

/// What to delete. Identifier and group deletions always name the acting
/// app: deleting `"a1"` for app A never touches app B's donation `"a1"`.
///
/// ```swift
/// try engine.delete(.identifiers(["order-42"], app: "com.example.coffee"))   // one donation
/// try engine.delete(.group("trip-7", app: "com.example.travel"))             // a group
/// try engine.delete(.matching(DonationFilter(user: "me", dates: DateSpan(end: cutoff))))  // user me's, before cutoff
/// ```
/// `Engine.delete` returns how many were deleted; saved models unlearn them at once.
public enum DonationDeletion: Sendable, Hashable {
    /// The app's donations with these identifiers (`deleteInteractions(with:)`).
    case identifiers([String], app: String)
    /// The app's donations in this group (`deleteInteractions(withGroupIdentifier:)`).
    case group(String, app: String)
    /// Everything the filter matches: all of one app's, one user's, a date
    /// span, or a combination. `.everything` empties the store.
    case matching(DonationFilter)
}

// MARK: - Appending

/// What to do when a donation's `(app, identifier)` is already stored, or
/// the same donation (every field equal, `DonationRecord+ContentKey`) is,
/// or either appears earlier in the same batch.
public enum DuplicatePolicy: Sendable, Hashable {
    /// Throw `StoreError.duplicateIdentifier` (or `.duplicateDonation`);
    /// nothing from the batch is stored.
    case fail
    /// Keep the stored donation, skip the new one and count it
    /// (re-importing a file or its export stores nothing new).
    case skip
}

/// How a batch append went.
public struct AppendResult: Sendable, Hashable {
    /// Rows written.
    public var inserted: Int
    /// Donations skipped because their `(app, identifier)`, or the same donation, was already stored.
    public var duplicates: Int

    public init(inserted: Int = 0, duplicates: Int = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
    }

    public static func + (lhs: AppendResult, rhs: AppendResult) -> AppendResult {
        AppendResult(inserted: lhs.inserted + rhs.inserted, duplicates: lhs.duplicates + rhs.duplicates)
    }
}

// MARK: - Paging

/// A position in the export order `(user, date, insertion order)`.
/// Opaque: take it from a page and hand it back for the next one.
public struct DonationCursor: Sendable, Hashable {
    package let user: String
    package let dateMilliseconds: Int64
    package let rowID: Int64

    package init(user: String, dateMilliseconds: Int64, rowID: Int64) {
        self.user = user
        self.dateMilliseconds = dateMilliseconds
        self.rowID = rowID
    }
}

/// One page of donations in export order.
public struct DonationPage: Sendable {
    public var donations: [Donation]
    /// Where the next page starts, or nil when this page was the last.
    public var next: DonationCursor?

    public init(donations: [Donation], next: DonationCursor?) {
        self.donations = donations
        self.next = next
    }
}
