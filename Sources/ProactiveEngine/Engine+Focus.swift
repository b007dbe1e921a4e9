import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore

// MARK: - Focus filters, notifications and people

/// What `focus filter define|configure|show`, `notify` and `focus people` do,
/// for the CLI and the service alike (they only read arguments and print).
/// An app acting (`StoreAccess.app`, an app credential) declares, configures and reads
/// only its own filter; the notification decision and people are the owner's.
extension Engine {
    /// What declaring a filter did.
    public struct DeclaredFilter: Sendable {
        public var filter: FocusFilter
        /// Configured values that no longer fit the declaration and were dropped: (Focus, parameter).
        public var dropped: [(focus: String, parameter: String)]
    }

    /// Declares (or replaces) an app's Focus filter, keeping the configured values that still fit it.
    /// - Throws: `StoreError(.accessDenied)` for another app's filter.
    public func declareFocusFilter(_ filter: FocusFilter) throws -> DeclaredFilter {
        try access.require(app: filter.app, to: "declare the Focus filter of")
        var engine = try focusFilters()
        let app = filter.app
        let before = engine.configuredFocuses(app: app).map { ($0, engine.configuredValues(app: app, focus: $0)) }
        engine.declare(filter)
        var kept: [String: [String: ParameterValue]] = [:]
        var dropped: [(String, String)] = []
        for (focus, values) in before {
            let remaining = engine.configuredValues(app: app, focus: focus)
            if !remaining.isEmpty { kept[focus] = remaining }
            for name in values.keys.sorted() where remaining[name] == nil { dropped.append((focus, name)) }
        }
        try focusStore.declareFilter(app: app, declaration: JSONWriter.string(filter.json), keeping: kept)
        return DeclaredFilter(filter: filter, dropped: dropped)
    }

    /// What configuring a filter did.
    public struct ConfiguredFilter: Sendable {
        public var filter: FocusFilter
        public var focus: String
        /// The values configured in `focus` now.
        public var values: [String: ParameterValue]
        public var display: FocusFilter.DisplayRepresentation
        /// The `perform()` call the app gets when `focus` is on at `now` and its values changed;
        /// nil for an app acting for itself, which may not learn which Focus is on.
        public var perform: FocusFilterPerform?
    }

    /// Sets (values typed as on the command line: `FocusFilterParameter.value(fromText:)`)
    /// and removes (`unset`, or an empty text) an app's filter values for one Focus.
    /// - Throws: `EngineError(.invalidRequest)` when the app declared no filter or a name is
    ///   not one of its parameters; `FocusError` for a value of the wrong type;
    ///   `StoreError(.accessDenied)` for another app's filter.
    public func configureFocusFilter(app: String, focus: String, set texts: [(name: String, value: String)], unset: [String],
                                     now: Date = Date()) throws -> ConfiguredFilter {
        try access.require(app: app, to: "configure the Focus filter of")
        let focusName: String
        do { focusName = try FocusName.validated(focus) } catch { throw EngineError(.invalidRequest, error.reason) }
        var engine = try focusFilters()
        guard let filter = engine.filter(app: app) else {
            throw EngineError(.invalidRequest, "\(app) has not declared a Focus filter")
        }
        var values: [String: ParameterValue] = [:]
        var removed = unset
        for (name, text) in texts {
            guard let parameter = filter.parameter(named: name) else {
                throw EngineError(.invalidRequest, "\(name): not a parameter of \(app)'s Focus filter (it has: \(filter.parameters.map(\.name).joined(separator: ", ")))")
            }
            if text.isEmpty { removed.append(name); continue }
            values[name] = try parameter.value(fromText: text)
        }
        let previous = engine.configuredValues(app: app, focus: focusName)
        try engine.configure(app: app, focus: focusName, set: values, unset: removed)
        let configured = engine.configuredValues(app: app, focus: focusName)
        try focusStore.replaceValues(app: app, focus: focusName, configured)
        var perform: FocusFilterPerform?
        if access.app == nil, try focusTimeline().timeline.focus(at: now) == focusName, previous != configured {
            perform = FocusFilterPerform(app: app, focus: focusName, values: engine.currentValues(app: app, activeFocus: focusName) ?? [:],
                                         reason: .configured)
        }
        return ConfiguredFilter(filter: filter, focus: focusName, values: configured,
                                display: filter.displayRepresentation(configured: configured), perform: perform)
    }

    /// The declared filters the acting party may see (one app's, or every app's), each with, per
    /// Focus it is configured in or has an app context for (only `focus` when given), the display
    /// representation, values, predicate and badge: the shape of `focus filter show --json`.
    /// - Throws: `EngineError(.invalidRequest)` when `app` declared no filter.
    public func focusFilterReports(app: String? = nil, focus: String? = nil) throws -> [JSONValue] {
        if let app { try access.require(app: app, to: "read the Focus filter of") }
        let engine = try focusFilters()
        if let app, engine.filter(app: app) == nil { throw EngineError(.invalidRequest, "\(app) has not declared a Focus filter") }
        let wanted = focus.map(FocusName.normalize)
        return (app.map { [$0] } ?? engine.filters.keys.sorted()).compactMap { app in
            let filter = engine.filter(app: app)!
            let focuses = Set(engine.configuredFocuses(app: app) + engine.appContextFocuses(app: app)).filter { wanted == nil || $0 == wanted }.sorted()
            let perFocus: [(String, JSONValue)] = focuses.map { name in
                let configured = engine.configuredValues(app: app, focus: name)
                let display = filter.displayRepresentation(configured: configured)
                var members: [(String, JSONValue)] = [("primary", .string(display.primary)), ("secondary", .string(display.secondary)),
                                                      ("values", .object(configured.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))]
                if let predicate = engine.activePredicate(app: app, focus: name) { members.append(("predicate", .string(predicate.description))) }
                if let badge = engine.appContext(app: app, focus: name)?.badgeCount {
                    members.append(("badge", .number(Double(badge), integer: Int64(badge))))
                }
                return (name, .object(members))
            }
            guard case let .object(declaration) = filter.json else { return nil }
            return .object(declaration + [("focuses", .object(perFocus))])
        }
    }

    /// Whether an app's notification is delivered or silenced in the Focus on at `date` (owner only, as `notify`).
    public struct NotificationAnswer: Sendable {
        public var decision: NotificationDecision
        public var focus: String?
        /// The app's badge count in that Focus, when it set one.
        public var badge: Int?

        /// `{"delivered", "reason", "focus", "predicate"?, "badge"?}`: the shape of `notify --json`.
        public var json: JSONValue {
            var members: [(String, JSONValue)] = [("delivered", .bool(decision.isDelivered)), ("reason", .string(decision.reason)),
                                                  ("focus", focus.map { .string($0) } ?? .null)]
            if let predicate = decision.predicate { members.append(("predicate", .string(predicate.description))) }
            if let badge { members.append(("badge", .number(Double(badge), integer: Int64(badge)))) }
            return .object(members)
        }
    }

    public func notificationDecision(app: String, criteria: FilterCriteria, at date: Date) throws -> NotificationAnswer {
        try access.requireAdministrator(to: "decide notifications (it reads every app's Focus filter)")
        let focus = try focusTimeline().timeline.focus(at: date)
        let engine = try focusFilters()
        return NotificationAnswer(decision: engine.deliver(FocusNotification(app: app, criteria: criteria), activeFocus: focus),
                                  focus: focus, badge: engine.badgeCount(app: app, activeFocus: focus))
    }

    /// People to suggest for each Focus's allowed-notifications list, from the user's messaging
    /// donations (owner only, as `focus people`); `user` nil: the store's only user. Only the
    /// suggested pairs unless `all`; only `focus`'s when given.
    /// - Throws: `EngineError(.invalidRequest)` when `user` is nil and the store holds other than one user.
    public func focusPeople(user: String?, focus: String? = nil, all: Bool = false,
                            configuration: FocusPeopleAnalysis.Configuration = .init()) throws -> (user: String, rows: [PersonFocusAssociation]) {
        try access.requireAdministrator(to: "suggest Focus people (it reads every app's donations)")
        let users = try donations.users()
        guard let user = user ?? (users.count == 1 ? users[0] : nil) else {
            throw EngineError(.invalidRequest, "the store holds \(users.count) users (\(users.prefix(5).joined(separator: ", "))); choose one")
        }
        let timeline = try focusTimeline().timeline
        var history: [Donation] = []
        try donations.forEachDonation(matching: DonationFilter(user: user)) { history.append(timeline.enrich($0)) }
        let analysis = FocusPeopleAnalysis(definitions: try definitions(), configuration: configuration)
        let wanted = focus.map(FocusName.normalize)
        return (user, analysis.associations(history).filter { (wanted == nil || $0.focus == wanted) && (all || $0.isSuggested) })
    }

    var focusStore: AppScopedFocusStore { AppScopedFocusStore(storage.focus, access: access) }
}

extension PersonFocusAssociation {
    /// One row of `focus people --json`.
    public var json: JSONValue {
        func number(_ value: Double) -> JSONValue { .number(value, integer: value == value.rounded() && abs(value) < 1e15 ? Int64(value) : nil) }
        return .object([("focus", .string(focus)), ("person", .string(person)), ("display", .string(display)),
                        ("messages", number(messages)), ("messages_to_person", number(messagesToPerson)),
                        ("messages_in_focus", number(messagesInFocus)), ("total_messages", number(totalMessages)),
                        ("share", number(share)), ("base_rate", number(baseRate)), ("lift", number(lift)),
                        ("pmi", number(pmi)), ("suggested", .bool(isSuggested))])
    }
}

// MARK: - The Focus status

/// Which Focus is on at a moment, why, and what each app's Focus filter applies then: what
/// `proactive focus status` prints and `GET /v1/focus` answers (`Engine.focusStatus(at:)`).
public struct FocusStatus: Sendable {
    /// What one app's Focus filter applies in the Focus on.
    public struct App: Sendable {
        public var app: String
        /// The values the app has now (what its last `perform()` received; empty: none set).
        public var values: [String: ParameterValue]
        /// The app's declaration (orders and displays the values).
        public var filter: FocusFilter?
        /// False when the app runs on its declaration's defaults in this Focus.
        public var configured: Bool
        /// The predicate its notifications are checked against, if any.
        public var predicate: FilterPredicate?
        /// Its badge count in this Focus, if the filter sets one.
        public var badge: Int?
    }

    public var date: Date
    /// The Focus on (nil: none), since when and until when, and what set it.
    public var state: FocusState
    /// The timeline the state was read from, with its schedules' row ids (same order).
    public var timeline: FocusTimeline
    public var scheduleIDs: [Int64]
    /// Every app with a Focus filter, by bundle identifier.
    public var apps: [App]
}

extension Engine {
    /// Which Focus is on at `date` and what each app's Focus filter applies then (the device owner's view).
    ///
    /// ```swift
    /// let status = try engine.focusStatus(at: Date())
    /// print(status.state.focus ?? "no Focus", status.apps.map(\.app))
    /// ```
    /// - Throws: `EngineError(.unreadableStoredData)` for a stored schedule or filter that cannot be read; store failures.
    public func focusStatus(at date: Date) throws -> FocusStatus {
        let (timeline, ids, _) = try focusTimeline()
        let state = timeline.state(at: date)
        let filters = try focusFilters()
        let apps = filters.filters.keys.sorted().map { app in
            FocusStatus.App(app: app, values: filters.currentValues(app: app, activeFocus: state.focus) ?? [:], filter: filters.filter(app: app),
                            configured: filters.isConfigured(app: app, focus: state.focus),
                            predicate: filters.activePredicate(app: app, focus: state.focus),
                            badge: filters.badgeCount(app: app, activeFocus: state.focus))
        }
        return FocusStatus(date: date, state: state, timeline: timeline, scheduleIDs: ids, apps: apps)
    }
}
