import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore

// MARK: - The Focus timeline and app contexts

extension Engine {
    var focusRows: any FocusStore { storage.focus }

    /// Adds a weekly Focus schedule. Owner only.
    /// - Returns: the schedule's id (what `removeFocusSchedule(id:)` takes).
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    ///
    /// ```swift
    /// let id = try engine.addFocusSchedule(try FocusSchedule(focus: "work", weekdays: [2, 3, 4, 5, 6], start: 540, end: 1_050,
    ///                                                        timeZone: TimeZone(identifier: "America/Los_Angeles")!))
    /// ```
    @discardableResult
    public func addFocusSchedule(_ schedule: FocusSchedule) throws -> Int64 {
        try access.requireAdministrator(to: "add a Focus schedule")
        return try focusRows.addSchedule(StoredFocusSchedule(focus: schedule.focus, weekdays: schedule.weekdays, startMinute: schedule.startMinute,
                                                             endMinute: schedule.endMinute, timeZone: schedule.timeZone.identifier))
    }

    /// Removes the Focus schedule with this id. Owner only.
    /// - Returns: false when no schedule has the id.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    public func removeFocusSchedule(id: Int64) throws -> Bool {
        try access.requireAdministrator(to: "remove a Focus schedule")
        return try focusRows.removeSchedule(id: id)
    }

    /// Records a manual Focus change at `date` (`focus` nil: Focus off until the next scheduled one). Owner only.
    /// - Returns: the Focus timeline before the change, with the schedules' ids (`focusTimeline()`).
    /// - Throws: `StoreError(.accessDenied)` under an app's access; `EngineError(.unreadableStoredData)`; store failures.
    ///
    /// ```swift
    /// let before = try engine.recordFocusChange("work", at: Date())
    /// ```
    @discardableResult
    public func recordFocusChange(_ focus: String?, at date: Date) throws -> (timeline: FocusTimeline, ids: [Int64]) {
        try access.requireAdministrator(to: "change the Focus")
        let before = try focusTimeline()
        try focusRows.recordChange(StoredFocusChange(date: date, focus: focus))
        return (before.timeline, before.ids)
    }

    /// What turning a Focus on or off by hand did (`setFocus(_:at:)`).
    public struct FocusSwitch: Sendable {
        /// The Focus on at the change, and why.
        public var state: FocusState
        /// The timeline with the change, and its schedules' row ids (same order).
        public var timeline: FocusTimeline
        public var scheduleIDs: [Int64]
        /// The `perform()` calls apps get for the change, each with the app's filter declaration (orders its values).
        public var performs: [(event: FocusFilterPerform, filter: FocusFilter?)]
    }

    /// Turns the Focus `focus` on by hand at `date` (nil: Focus off) until the next schedule boundary
    /// (`recordFocusChange`), and says what the apps' Focus filters get from it. Device owner only.
    ///
    /// ```swift
    /// let change = try engine.setFocus("work", at: Date())
    /// for perform in change.performs { print(perform.event.app, perform.event.values) }
    /// ```
    /// - Throws: `StoreError(.accessDenied)` under an app's access; `EngineError(.unreadableStoredData)`; store failures.
    public func setFocus(_ focus: String?, at date: Date) throws -> FocusSwitch {
        let (before, ids) = try recordFocusChange(focus, at: date)
        var after = before
        after.set(focus, at: date)
        let state = after.state(at: date)
        let filters = try focusFilters()
        return FocusSwitch(state: state, timeline: after, scheduleIDs: ids,
                           performs: filters.performEvents(from: before.focus(at: date), to: state.focus).map { ($0, filters.filter(app: $0.app)) })
    }

    /// Sets (or, with an empty context, clears) `app`'s context in a Focus: the predicate its content is
    /// filtered by and its badge count. The filter must be declared.
    /// - Throws: `StoreError(.accessDenied)` for another app's context; `FocusError` when the app has
    ///   declared no filter; store failures. Nothing is stored then.
    ///
    /// ```swift
    /// try engine.setFocusAppContext(app: "com.example.mail", focus: "work",
    ///                               AppContext(filterPredicate: try FilterPredicate(parsing: "account == \"Work\""), badgeCount: 3))
    /// ```
    public func setFocusAppContext(app: String, focus: String, _ context: AppContext) throws {
        try access.require(app: app, to: "set the Focus app context of")
        var filters = try focusFilters()
        try filters.setAppContext(app: app, focus: focus, context)
        try focusStore.setAppContext(StoredAppContext(app: app, focus: focus, filterPredicate: context.filterPredicate?.description,
                                                      badgeCount: context.badgeCount))
    }
}
