import Foundation
import ProactiveCore

// MARK: - Donations seen by one app

/// A `DonationStore` that lets the acting app append, read, count, export and
/// delete only its own donations. In administrative mode it passes every call
/// through unchanged.
///
/// | operation | app mode |
/// |---|---|
/// | append | every donation's `app` must be the acting app (else nothing is stored) |
/// | delete by identifiers / group | the deletion must name the acting app |
/// | delete / page / statistics by filter | the filter is restricted to the acting app; a filter naming another app is refused |
/// | donations(forUser:) | only the acting app's donations of that user |
/// | users | users with at least one donation of the acting app |
/// | time zones | readable; setting one is for the device owner only |
///
/// What an app reads carries no `context.focus`: the Focus is the device
/// owner's (recorded with each donation), which apps may not read.
///
/// Refusals are `StoreError(.accessDenied)` and change nothing.
package struct AppScopedDonationStore: DonationStore, DonationRecordAppender {
    package let base: any DonationStore
    package let access: StoreAccess

    package init(_ base: any DonationStore, access: StoreAccess) {
        self.base = base
        self.access = access
    }

    // MARK: Writing

    package func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        try check(apps: donations.lazy.map(\.app))
        return try base.append(donations, duplicates: duplicates)
    }

    func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        try check(apps: records.lazy.map(\.app))
        return try base.append(records: records, duplicates: duplicates)
    }

    package func bulkLoading<Result>(_ body: () throws -> Result) rethrows -> Result {
        try base.bulkLoading(body)
    }

    package func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result {
        try base.inOneTransaction { appender in try body(ScopedAppender(base: appender, store: self)) }
    }

    private struct ScopedAppender: DonationAppender, DonationRecordAppender {
        let base: any DonationAppender
        let store: AppScopedDonationStore

        func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try store.check(apps: donations.lazy.map(\.app))
            return try base.append(donations, duplicates: duplicates)
        }

        func appendEach(_ donations: [Donation]) throws(StoreError) -> [Result<Bool, StoreError>] {
            try store.check(apps: donations.lazy.map(\.app))
            return try base.appendEach(donations)
        }

        func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] {
            try store.check(apps: prepared.donations.lazy.map(\.app))
            return try base.appendEach(prepared: prepared)
        }

        func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try store.check(apps: records.lazy.map(\.app))
            return try base.append(records: records, duplicates: duplicates)
        }
    }

    /// Refuses the whole write when any donation is for an app this party may not donate for.
    private func check(apps: some Sequence<String>) throws(StoreError) {
        for app in apps { try access.require(app: app, to: "donate for") }
    }

    package func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int {
        switch deletion {
        case let .identifiers(_, app), let .group(_, app):
            try access.require(app: app, to: "delete")
            return try base.delete(deletion)
        case let .matching(filter):
            return try base.delete(.matching(try access.scope(filter, to: "delete")))
        }
    }

    // MARK: Reading

    package func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation] {
        let all = try base.donations(forUser: user, in: dates)
        guard access.app != nil else { return all }
        return all.filter { access.sees(app: $0.app) }.map(Self.withoutFocus)
    }

    package func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage {
        var page = try base.page(matching: try access.scope(filter, to: "read"), after: cursor, limit: limit)
        if access.app != nil { page.donations = page.donations.map(Self.withoutFocus) }
        return page
    }

    /// The donation as an app may read it: without the owner's Focus.
    static func withoutFocus(_ donation: Donation) -> Donation {
        guard donation.context["focus"] != nil else { return donation }
        var copy = donation
        copy.context["focus"] = nil
        return copy
    }

    package func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics {
        try base.statistics(matching: try access.scope(filter, to: "count"))
    }

    package func users() throws(StoreError) -> [String] {
        guard access.app != nil else { return try base.users() }
        return try statistics(matching: .everything).byUser.map(\.name).sorted()
    }

    // MARK: Settings

    package func timeZone(forUser user: String) throws(StoreError) -> String? {
        try base.timeZone(forUser: user)
    }

    package func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError) {
        try access.requireAdministrator(to: "set a user's time zone")
        try base.setTimeZone(identifier, forUser: user)
    }
}
