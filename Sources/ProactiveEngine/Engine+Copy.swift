import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Moving a store to another database

extension Engine {
    /// What `copy(to:progress:)` carried over, part by part.
    public struct CopyReport: Sendable, Equatable {
        public var donations = 0
        public var userTimeZones = 0
        public var definitions = 0
        public var shortcutSets = 0
        public var timelines = 0
        public var feedback = 0
        public var focusSchedules = 0
        public var focusChanges = 0
        public var focusFilters = 0
        public var retentionWindows = 0
        public var recordingPaused = false

        public init() {}
    }

    /// Copies what this store holds into `target`, an empty store on any database (a SQLite file
    /// to PostgreSQL and back): donations in export order (user, date, then insertion order; every
    /// field, so `export` of both prints the same bytes), users' time zones, intent definitions, each user's relevant shortcuts, widget
    /// timelines and feedback, Focus schedules, changes and filters (with their values and app
    /// contexts), retention windows and the recording pause (set last, so the copy is not refused).
    /// Saved model states are not copied: they name the source's donation ids; `train` on the target
    /// fits them again. Declarations and feedback are those of users with donations.
    ///
    /// ```swift
    /// let report = try Engine(path: "me.sqlite").copy(to: Engine(storage: try PostgresBackend(url: url)))
    /// ```
    /// - Parameter progress: told the number of donations copied so far, after each page.
    /// - Throws: `.accessDenied` unless both engines act as the owner; `.invalidRequest` when `target`
    ///   already holds donations, definitions, Focus schedules or filters (nothing is written then);
    ///   store errors (what was copied before stays in `target`, which is a new store to drop).
    public func copy(to target: Engine, progress: (Int) -> Void = { _ in }) throws -> CopyReport {
        try access.requireAdministrator(to: "copy the store")
        try target.access.requireAdministrator(to: "copy into a store")
        let into = target.storage
        guard try into.donations.users().isEmpty, try into.definitions.all().isEmpty,
              try into.focus.schedules().isEmpty, try into.focus.allFilters().isEmpty else {
            throw StoreError(.invalidRequest, "\(into.location) is not empty: copy writes into a new store only")
        }
        var report = CopyReport()
        try into.privacy.setRetention(.keepAll, app: nil)  // nothing copied is erased by the target's default meanwhile

        var cursor: DonationCursor?
        repeat {
            let page = try storage.donations.page(matching: .everything, after: cursor, limit: 5_000)
            report.donations += try into.donations.append(page.donations, duplicates: .fail).inserted
            progress(report.donations)
            cursor = page.next
        } while cursor != nil

        let users = try storage.donations.users()
        for user in users {
            if let zone = try storage.donations.timeZone(forUser: user) {
                try into.donations.setTimeZone(zone, forUser: user)
                report.userTimeZones += 1
            }
        }
        let definitions = try storage.definitions.all()
        try into.definitions.replace(with: definitions, apps: Set(definitions.map(\.app)))
        report.definitions = definitions.count

        for user in users {
            for set in try storage.declarations.shortcutSets(user: user) {
                try into.declarations.replaceShortcutSet(set)
                report.shortcutSets += 1
            }
            for timeline in try storage.declarations.timelines(user: user) {
                try into.declarations.replaceTimeline(timeline)
                report.timelines += 1
            }
            let feedback = try storage.declarations.feedback(user: user)
            try into.declarations.appendFeedback(feedback)
            report.feedback += feedback.count
        }

        for schedule in try storage.focus.schedules() {
            try into.focus.addSchedule(schedule)
            report.focusSchedules += 1
        }
        for change in try storage.focus.changes() {
            try into.focus.recordChange(change)
            report.focusChanges += 1
        }
        for filter in try storage.focus.allFilters() {
            try into.focus.declareFilter(app: filter.app, declaration: filter.declaration, keeping: filter.values)
            for context in filter.contexts { try into.focus.setAppContext(context) }
            report.focusFilters += 1
        }

        let policy = try storage.privacy.retentionPolicy()
        try into.privacy.setRetention(policy.defaultWindow, app: nil)
        for (app, window) in policy.byApp.sorted(by: { $0.key < $1.key }) {
            try into.privacy.setRetention(window, app: app)
            report.retentionWindows += 1
        }
        if let since = try storage.privacy.pausedSince() {
            try into.privacy.setRecordingPaused(true, at: since)
            report.recordingPaused = true
        }
        return report
    }
}
