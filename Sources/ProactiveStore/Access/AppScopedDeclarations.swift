import Foundation
import ProactiveCore

// MARK: - Relevant shortcuts, timelines and feedback seen by one app

/// A `DeclarationStore` for one acting app: it may replace and list only
/// its own relevant-shortcut sets and widget timelines. Feedback is what the
/// user did with suggestions; recording or reading it is for the device
/// owner only. In administrative mode every call passes through.
public struct AppScopedDeclarationStore: Sendable {
    public let base: any DeclarationStore
    public let access: StoreAccess

    public init(_ base: any DeclarationStore, access: StoreAccess) {
        self.base = base
        self.access = access
    }

    public func replaceShortcutSet(_ set: StoredShortcutSet) throws(StoreError) {
        try access.require(app: set.app, to: "declare relevant shortcuts for")
        try base.replaceShortcutSet(set)
    }

    /// The user's sets; an app sees only its own.
    public func shortcutSets(user: String) throws(StoreError) -> [StoredShortcutSet] {
        try base.shortcutSets(user: user).filter { access.sees(app: $0.app) }
    }

    public func replaceTimeline(_ timeline: StoredTimeline) throws(StoreError) {
        try access.require(app: timeline.app, to: "replace the widget timelines of")
        try base.replaceTimeline(timeline)
    }

    /// The user's timelines; an app sees only its own widgets'.
    public func timelines(user: String) throws(StoreError) -> [StoredTimeline] {
        try base.timelines(user: user).filter { access.sees(app: $0.app) }
    }

    public func appendFeedback(_ events: [StoredFeedback]) throws(StoreError) {
        try access.requireAdministrator(to: "record feedback")
        try base.appendFeedback(events)
    }

    public func feedback(user: String) throws(StoreError) -> [StoredFeedback] {
        try access.requireAdministrator(to: "read feedback")
        return try base.feedback(user: user)
    }
}

// MARK: - Focus filters seen by one app

/// A `FocusStore` for one acting app: it may declare, remove, configure
/// and read only its own Focus filter and app contexts. Schedules and Focus
/// changes are the device owner's (an app can neither read nor change them).
package struct AppScopedFocusStore: Sendable {
    package let base: any FocusStore
    package let access: StoreAccess

    package init(_ base: any FocusStore, access: StoreAccess) {
        self.base = base
        self.access = access
    }

    package func declareFilter(app: String, declaration: String, keeping values: [String: [String: ParameterValue]] = [:]) throws(StoreError) {
        try access.require(app: app, to: "declare the Focus filter of")
        try base.declareFilter(app: app, declaration: declaration, keeping: values)
    }

    @discardableResult
    package func removeFilter(app: String) throws(StoreError) -> Bool {
        try access.require(app: app, to: "remove the Focus filter of")
        return try base.removeFilter(app: app)
    }

    package func replaceValues(app: String, focus: String, _ values: [String: ParameterValue]) throws(StoreError) {
        try access.require(app: app, to: "configure the Focus filter of")
        try base.replaceValues(app: app, focus: focus, values)
    }

    package func setAppContext(_ context: StoredAppContext) throws(StoreError) {
        try access.require(app: context.app, to: "set the Focus app context of")
        try base.setAppContext(context)
    }

    package func filter(app: String) throws(StoreError) -> StoredFocusFilter? {
        try access.require(app: app, to: "read the Focus filter of")
        return try base.filter(app: app)
    }

    /// Every filter the acting party may see: all in administrative mode, an app's own otherwise.
    package func visibleFilters() throws(StoreError) -> [StoredFocusFilter] {
        guard let app = access.app else { return try base.allFilters() }
        return try base.filter(app: app).map { [$0] } ?? []
    }

    package func schedules() throws(StoreError) -> [StoredFocusSchedule] {
        try access.requireAdministrator(to: "read Focus schedules")
        return try base.schedules()
    }

    package func changes() throws(StoreError) -> [StoredFocusChange] {
        try access.requireAdministrator(to: "read Focus changes")
        return try base.changes()
    }
}
