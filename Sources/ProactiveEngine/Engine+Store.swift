import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - What the store holds

/// What `Engine.storeReport(matching:checkIntegrity:)` found.
public struct StoreReport: Sendable {
    /// Counts of the donations the filter matches, as the acting party sees them.
    public var statistics: DonationStatistics
    /// The last schema migration applied ("none" for an empty file).
    public var schema: String
    /// The zone set for each user in `statistics.byUser` that has one.
    public var timeZones: [String: String]
    /// What the store's own consistency check reported (`StoreBackend.integrityProblems`; empty: ok, or not checked).
    public var integrityProblems: [String]
}

extension Engine {
    /// Whether the store answers now: one cheap statement (the recording state, one row read by its
    /// key), for a readiness check (`GET /readyz`). Reads no donation and needs no access.
    /// - Throws: `StoreError` as the store reports it (`.unavailable` while a database server is away).
    ///
    /// ```swift
    /// try engine.checkStoreAnswers()   // throws while PostgreSQL is paused or restarting
    /// ```
    public func checkStoreAnswers() throws { _ = try privacy.isRecordingPaused() }

    var scopedDonations: AppScopedDonationStore { AppScopedDonationStore(donations, access: access) }

    /// The users with donations the acting party may see, sorted.
    /// - Throws: `StoreError` when the store cannot be read.
    public func users() throws -> [String] { try scopedDonations.users() }

    /// Checks that the store holds donations of `user` and of `app` (each when given) that the acting
    /// party may see, for a command that names them to delete, forget or train: a name it does not hold
    /// is most often a typo, and acting on nothing would look like success.
    /// - Throws: `EngineError(.noDonations)` naming the first unknown one with what the store holds,
    ///   as `predict` says it: `user ghost has no donations; the store's users: me, u1`, or
    ///   `app com.acme.nothing has no donations; the store's apps: com.example.coffee`; store failures.
    ///
    /// ```swift
    /// try engine.requireDonations(user: "ghost")   // throws: user ghost has no donations; the store's users: me
    /// ```
    public func requireDonations(user: String? = nil, app: String? = nil) throws {
        if let user, try !users().contains(user) {
            throw EngineError(.noDonations, "user \(user) has no donations" + (try knownUsersPhrase()))
        }
        if let app, try scopedDonations.count(matching: DonationFilter(app: app)) == 0 {
            let apps = try statistics().byApp.map(\.name).sorted()
            let more = apps.count > 10 ? " and \(apps.count - 10) more" : ""
            throw EngineError(.noDonations, "app \(app) has no donations"
                + (apps.isEmpty ? "; the store has no donations" : "; the store's apps: " + apps.prefix(10).joined(separator: ", ") + more))
        }
    }

    /// The IANA zone set for `user`, or nil (each donation's own offset then stands).
    /// - Throws: `StoreError` when the store cannot be read.
    public func timeZone(forUser user: String) throws -> String? { try scopedDonations.timeZone(forUser: user) }

    /// A user's clock at a moment, as dates without an offset are read on it (`userClock(_:at:)`).
    public struct UserClock: Sendable, Hashable {
        public var user: String
        /// The IANA zone set for the user; nil when none is (each donation's own offset then stands).
        public var timeZone: String?
        /// The clock's offset from UTC at the moment, in seconds: the zone's, else the offset of the user's
        /// latest donation at or before it (else their first one), else 0.
        public var utcOffset: Int
        /// The clock for a person: "America/Los_Angeles", or "UTC-08:00, the offset of the user's latest donation".
        public var description: String
    }

    /// `user`'s clock at `date`: the zone set for them, and the offset and description of the clock their
    /// local times are read on then (`clock(user:at:)`). Device owner only (the offset comes from any app's donation).
    ///
    /// ```swift
    /// let clock = try engine.userClock("me", at: Date())
    /// print(clock.timeZone ?? "no zone", clock.description)
    /// ```
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    public func userClock(_ user: String, at date: Date) throws -> UserClock {
        try access.requireAdministrator(to: "read a user's clock (it reads every app's donations)")
        let clock = try clock(user: user, at: date)
        return UserClock(user: user, timeZone: try timeZone(forUser: user), utcOffset: clock.offset, description: clock.description)
    }

    /// Sets (or with nil clears) `user`'s zone: their local times are read on it from then on.
    /// - Throws: `StoreError(.accessDenied)` when the acting party may not; store failures.
    ///
    /// ```swift
    /// try engine.setTimeZone("Europe/Paris", forUser: "me")
    /// ```
    public func setTimeZone(_ zone: String?, forUser user: String) throws { try scopedDonations.setTimeZone(zone, forUser: user) }

    /// Takes each stated zone (user to IANA zone, as donations state it) as its user's when the user has
    /// none; a zone already set stays, whatever the donations say.
    /// - Returns: the users whose zone was newly set, sorted.
    /// - Throws: `StoreError(.accessDenied)` when the acting party may not set zones; an unknown zone; store failures.
    ///
    /// ```swift
    /// let adopted = try engine.adoptTimeZones(["me": "Europe/Paris"])   // ["me"] the first time, [] after
    /// ```
    public func adoptTimeZones(_ zones: [String: String]) throws -> [String] {
        var adopted: [String] = []
        for (user, zone) in zones.sorted(by: { $0.key < $1.key }) where try scopedDonations.timeZone(forUser: user) == nil {
            try scopedDonations.setTimeZone(zone, forUser: user)
            adopted.append(user)
        }
        return adopted
    }

    /// Counts of the donations `filter` matches that the acting party may see, per user and app.
    /// - Throws: `StoreError(.accessDenied)` for another app's donations under an app's access; store failures.
    ///
    /// ```swift
    /// let counts = try engine.statistics(matching: DonationFilter(user: "me"))
    /// print(counts.donations)
    /// ```
    public func statistics(matching filter: DonationFilter = .everything) throws -> DonationStatistics {
        try scopedDonations.statistics(matching: filter)
    }

    /// The donations `filter` matches that the acting party may see, with the store's schema, the users'
    /// zones and, when `checkIntegrity`, what the store's own consistency check finds (SQLite: `integrity_check`).
    /// - Throws: `StoreError(.accessDenied)` for another app's donations under an app's access; store failures.
    ///
    /// ```swift
    /// let report = try engine.storeReport(matching: DonationFilter(user: "u1"), checkIntegrity: true)
    /// print(report.statistics.donations, report.integrityProblems.isEmpty)
    /// ```
    public func storeReport(matching filter: DonationFilter = .everything, checkIntegrity: Bool = false) throws -> StoreReport {
        let statistics = try scopedDonations.statistics(matching: filter)
        var timeZones: [String: String] = [:]
        for tally in statistics.byUser { timeZones[tally.name] = try scopedDonations.timeZone(forUser: tally.name) }
        return StoreReport(statistics: statistics, schema: try storage.schemaVersion(), timeZones: timeZones,
                           integrityProblems: checkIntegrity ? try storage.integrityProblems() : [])
    }

    /// One page of the donations `filter` matches that the acting party may see, in id order after `cursor`.
    /// - Throws: `StoreError(.accessDenied)` for another app's donations under an app's access; store failures.
    public func donations(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws -> DonationPage {
        try scopedDonations.page(matching: filter, after: cursor, limit: limit)
    }

    /// `user`'s donations in `dates` that the acting party may see, oldest first.
    /// - Throws: store failures.
    public func donations(forUser user: String, in dates: DateSpan = .all) throws -> [Donation] {
        try scopedDonations.donations(forUser: user, in: dates)
    }

    /// `user`'s stored feedback events as their JSON text (`FeedbackCodec`), oldest first, as stored:
    /// a row a stricter rule no longer decodes is listed too. Owner only.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    public func storedFeedbackJSON(user: String) throws -> [String] {
        try access.requireAdministrator(to: "list feedback")
        return try storage.declarations.feedback(user: user).map(\.eventJSON)
    }
}
