import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Pausing, retention, forgetting, compaction

extension Engine {
    var privacy: any PrivacyStore { storage.privacy }

    /// Whether recording is paused (every donation and feedback write is then refused).
    /// - Throws: `StoreError` when the store cannot be read.
    public func isRecordingPaused() throws -> Bool { try privacy.isRecordingPaused() }

    /// When recording was paused, or nil while it records.
    /// - Throws: `StoreError` when the store cannot be read.
    public func recordingPausedSince() throws -> Date? { try privacy.pausedSince() }

    /// Pauses (`true`) or resumes recording as of `date`: while paused, every donation and feedback
    /// write is refused and nothing stored is deleted. Device owner only.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    ///
    /// ```swift
    /// try engine.setRecordingPaused(true, at: Date())
    /// ```
    public func setRecordingPaused(_ paused: Bool, at date: Date) throws {
        try access.requireAdministrator(to: "pause or resume recording")
        try privacy.setRecordingPaused(paused, at: date)
    }

    /// Refuses a write of donations or feedback before it starts while recording is paused.
    /// - Throws: `StoreError(.recordingPaused)` naming since when and how to resume (`resume`, the
    ///   caller's way, such as "proactive pause off"); store failures.
    public func requireRecording(resume: String = "resume recording") throws {
        guard try privacy.isRecordingPaused() else { return }
        let since = try privacy.pausedSince().map { " since " + Timestamp.format(secondsSince1970: $0.timeIntervalSince1970, utcOffsetSeconds: 0) } ?? ""
        throw StoreError(.recordingPaused, "recording is paused\(since): donations and feedback are refused and nothing was stored "
                         + "(\(resume) resumes; nothing stored was deleted)")
    }

    /// The retention policy: the default window and each app's own.
    /// - Throws: `StoreError` when the store cannot be read.
    public func retentionPolicy() throws -> RetentionPolicy { try privacy.retentionPolicy() }

    /// Sets the default retention window, or `app`'s own. It takes effect at the next `applyRetention`.
    /// Device owner only.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    ///
    /// ```swift
    /// try engine.setRetention(.days(7), app: "com.example.health")
    /// ```
    public func setRetention(_ window: RetentionWindow, app: String? = nil) throws {
        try access.requireAdministrator(to: "set the retention policy")
        try privacy.setRetention(window, app: app)
    }

    /// Removes `app`'s own retention window, so it follows the default again. Device owner only.
    /// - Returns: false when the app had no window of its own.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    @discardableResult
    public func clearRetention(app: String) throws -> Bool {
        try access.requireAdministrator(to: "change the retention policy")
        return try privacy.clearRetention(app: app)
    }

    /// Erases every row the store holds for `user` (donations, feedback, shortcuts, timelines, the
    /// zone setting) in one transaction, overwritten on disk. Device owner only.
    /// - Returns: the rows erased per kind ("donations": 12, ...).
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    ///
    /// ```swift
    /// let erased = try engine.forget(user: "u1")   // ["donations": 12, "feedback": 1]
    /// ```
    public func forget(user: String) throws -> [String: Int] {
        try access.requireAdministrator(to: "forget a user")
        return try privacy.forget(user: user)
    }

    /// Erases what the acting party holds of `user`, or only `app`'s part of it. The device owner
    /// without `app` erases everything (`forget(user:)`: donations, feedback, shortcuts, timelines, the
    /// zone setting, saved models); with `app`, or under an app's access (its own data only), the
    /// app's donations, feedback, relevant shortcuts and widget timelines of the user go, then saved
    /// models unlearn those donations (`settleDeletions`) and the store's log is emptied again, so
    /// no page keeps their bytes. What the HTTP erasure route runs (`DELETE /v1/users`).
    /// - Returns: the rows erased per table ("donation": 12, "feedback": 1, ...; tables with none omitted).
    /// - Throws: `StoreError(.accessDenied)` for another app's data under an app's access;
    ///   `StoreError(.invalidRequest)` for an empty user or app; store failures.
    ///
    /// ```swift
    /// let erased = try Engine(storage: storage, access: .app("com.example.coffee")).erase(user: "u1")
    /// ```
    public func erase(user: String, app: String? = nil, now: Date = Date()) throws -> [String: Int] {
        if let app { try access.require(app: app, to: "erase") }
        guard let app = app ?? access.app else { return try forget(user: user) }
        let erased = try privacy.forget(user: user, app: app)
        if erased["donation", default: 0] > 0 { _ = try finishErasure(now: now) }
        return erased
    }

    /// Settles pending deletions (no deleted donation stays in a saved state or the journal), then
    /// rebuilds the store file without free pages and truncates its write-ahead log. Device owner only.
    /// - Returns: the file and log sizes before and after, and whether the log could be truncated.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    public func compact(now: Date = Date()) throws -> StoreCompactionReport {
        try access.requireAdministrator(to: "compact the store")
        try settleDeletions(now: now)
        return try privacy.compact()
    }
}
