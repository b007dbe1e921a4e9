import ProactiveCore

// MARK: - App contexts and perform events

/// What an app returns for a Focus after receiving its filter values: the
/// predicate its notifications' criteria must match, and the badge count that
/// matters in that Focus.
public struct AppContext: Sendable, Hashable {
    package var filterPredicate: FilterPredicate?
    public var badgeCount: Int?

    package init(filterPredicate: FilterPredicate? = nil, badgeCount: Int? = nil) {
        self.filterPredicate = filterPredicate
        self.badgeCount = badgeCount
    }
}

/// One call of an app's `perform()` caused by a Focus change.
public struct FocusFilterPerform: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
        /// The new Focus has values configured for this app.
        case configured
        /// The values delivered earlier no longer apply: the defaults are delivered.
        case defaultsRestored = "defaults restored"
    }
    public var app: String
    /// The Focus now on (nil: none).
    public var focus: String?
    /// The values that now apply: configured values over the defaults, or the defaults alone.
    public var values: [String: ParameterValue]
    public var reason: Reason

    public init(app: String, focus: String?, values: [String: ParameterValue], reason: Reason) {
        self.app = app
        self.focus = focus
        self.values = values
        self.reason = reason
    }
}

// MARK: - The engine

/// Focus filter declarations, the values users configured per Focus, and the
/// app contexts apps returned -- and the decisions that follow from them.
///
/// **Isolation.** Every call that reads or changes an app's settings takes the
/// app's bundle identifier and touches only that app's entries; an app cannot
/// configure a filter it did not declare.
///
/// ```swift
/// var engine = FocusFilterEngine()
/// try engine.declare(mailFilter)
/// try engine.configure(app: "com.example.mail", focus: "Personal", set: ["account": .entity(id: "personal", display: "Personal")])
/// engine.performEvents(from: "work", to: "personal")   // mail's perform() with account=personal
/// engine.deliver(FocusNotification(app: "com.example.mail", criteria: FilterCriteria(["account": "work"])), activeFocus: "personal")
/// // silenced: criteria account=work do not match account == "personal"
/// ```
public struct FocusFilterEngine: Sendable {
    struct Key: Hashable, Sendable {
        var app: String
        var focus: String
    }

    /// Declared filters by app.
    public private(set) var filters: [String: FocusFilter] = [:]
    private var settings: [Key: [String: ParameterValue]] = [:]
    private var contexts: [Key: AppContext] = [:]

    public init() {}

    // MARK: Declarations

    /// Declares (or replaces) an app's filter. Configured values that no longer
    /// fit the new declaration (removed parameters, changed types) are dropped.
    public mutating func declare(_ filter: FocusFilter) {
        filters[filter.app] = filter
        for (key, values) in settings where key.app == filter.app {
            settings[key] = values.filter { name, value in filter.parameter(named: name)?.accepts(value) ?? false }
        }
    }

    /// Removes an app's filter with its configured values and app contexts.
    public mutating func removeFilter(app: String) {
        filters[app] = nil
        settings = settings.filter { $0.key.app != app }
        contexts = contexts.filter { $0.key.app != app }
    }

    public func filter(app: String) -> FocusFilter? { filters[app] }

    private func declared(_ app: String) throws(FocusError) -> FocusFilter {
        guard let filter = filters[app] else { throw FocusError(field: "app", reason: "\(app) has not declared a Focus filter") }
        return filter
    }

    // MARK: Configuration (per app, per Focus)

    /// Sets some values and unsets others for one app in one Focus; other values are kept.
    /// Unsetting a required parameter brings back its default.
    /// - Throws: `FocusError` naming the app or parameter when the app declared no
    ///   filter, a name is not a parameter, or a value does not fit.
    package mutating func configure(app: String, focus: String, set values: [String: ParameterValue] = [:], unset: [String] = []) throws(FocusError) {
        let filter = try declared(app)
        try filter.validate(values)
        for name in unset where filter.parameter(named: name) == nil {
            throw FocusError(field: name, reason: "not a parameter of \(app)'s Focus filter")
        }
        let key = Key(app: app, focus: try FocusName.validated(focus))
        var current = settings[key] ?? [:]
        for name in unset { current[name] = nil }
        current.merge(values) { _, new in new }
        settings[key] = current.isEmpty ? nil : current
    }

    /// Replaces one app's configured values in one Focus (used when loading a store).
    package mutating func replaceConfiguration(app: String, focus: String, values: [String: ParameterValue]) throws(FocusError) {
        try declared(app).validate(values)
        let key = Key(app: app, focus: try FocusName.validated(focus))
        settings[key] = values.isEmpty ? nil : values
    }

    /// The values the user set for `app` in `focus` (no defaults), empty when none.
    public func configuredValues(app: String, focus: String) -> [String: ParameterValue] {
        settings[Key(app: app, focus: FocusName.normalize(focus))] ?? [:]
    }

    /// The Focuses in which the user configured `app`'s filter, sorted.
    public func configuredFocuses(app: String) -> [String] {
        settings.keys.filter { $0.app == app }.map(\.focus).sorted()
    }

    /// Whether the user configured `app`'s filter for `focus`.
    public func isConfigured(app: String, focus: String?) -> Bool {
        guard let focus else { return false }
        return settings[Key(app: app, focus: FocusName.normalize(focus))] != nil
    }

    /// The values that apply to `app` now: configured values of the active Focus
    /// over the defaults, or the defaults alone (nil when the app declared no filter).
    public func currentValues(app: String, activeFocus: String?) -> [String: ParameterValue]? {
        guard let filter = filters[app] else { return nil }
        guard let activeFocus else { return filter.defaults }
        return filter.effectiveValues(configuredValues(app: app, focus: activeFocus))
    }

    /// The display representation of `app`'s filter as configured for `focus`.
    public func displayRepresentation(app: String, focus: String) -> FocusFilter.DisplayRepresentation? {
        filters[app]?.displayRepresentation(configured: configuredValues(app: app, focus: focus))
    }

    // MARK: Focus changes

    /// The `perform()` calls a Focus change causes, one per app at most, sorted by app:
    /// - the new Focus has values for the app -> those values (over the defaults), unless
    ///   the old Focus had exactly the same configured values;
    /// - otherwise, the old Focus had values for the app -> the defaults (the earlier
    ///   values stop applying);
    /// - otherwise nothing (the app already runs with its defaults).
    public func performEvents(from old: String?, to new: String?) -> [FocusFilterPerform] {
        let old = old.map(FocusName.normalize), new = new.map(FocusName.normalize)
        var events: [FocusFilterPerform] = []
        for app in filters.keys.sorted() {
            let filter = filters[app]!
            let before = isConfigured(app: app, focus: old) ? configuredValues(app: app, focus: old!) : nil
            let after = isConfigured(app: app, focus: new) ? configuredValues(app: app, focus: new!) : nil
            if let after {
                if before != after { events.append(FocusFilterPerform(app: app, focus: new, values: filter.effectiveValues(after), reason: .configured)) }
            } else if before != nil {
                events.append(FocusFilterPerform(app: app, focus: new, values: filter.defaults, reason: .defaultsRestored))
            }
        }
        return events
    }

    // MARK: App contexts

    /// Stores the app context `app` returned for `focus` (replacing an earlier one).
    /// - Throws: when the app declared no filter or the badge count is negative.
    package mutating func setAppContext(app: String, focus: String, _ context: AppContext) throws(FocusError) {
        _ = try declared(app)
        if let badge = context.badgeCount, badge < 0 { throw FocusError(field: "badge", reason: "a badge count cannot be negative (\(badge))") }
        let key = Key(app: app, focus: try FocusName.validated(focus))
        contexts[key] = context.filterPredicate == nil && context.badgeCount == nil ? nil : context
    }

    /// The app context `app` set for `focus`, if any.
    public func appContext(app: String, focus: String) -> AppContext? {
        contexts[Key(app: app, focus: FocusName.normalize(focus))]
    }

    /// The Focuses for which `app` set an app context, sorted.
    public func appContextFocuses(app: String) -> [String] {
        contexts.keys.filter { $0.app == app }.map(\.focus).sorted()
    }

    /// The badge count `app` set for the active Focus (nil: none set, the app's own count shows).
    public func badgeCount(app: String, activeFocus: String?) -> Int? {
        guard let activeFocus else { return nil }
        return appContext(app: app, focus: activeFocus)?.badgeCount
    }

    /// The predicate that applies to `app` in `focus`: the app context's own
    /// predicate when it set one; otherwise one derived from the configured
    /// values of parameters that declare `matches` (`matches == value`, entities
    /// by id); nil when neither exists.
    package func activePredicate(app: String, focus: String?) -> FilterPredicate? {
        guard let focus else { return nil }
        if let explicit = appContext(app: app, focus: focus)?.filterPredicate { return explicit }
        guard let filter = filters[app] else { return nil }
        let configured = configuredValues(app: app, focus: focus)
        var clauses: [FilterPredicate.Clause] = []
        for parameter in filter.parameters {
            guard let key = parameter.matches, let value = configured[parameter.name] else { continue }
            clauses.append(.equals(key: key, value: value.keyText))
        }
        return clauses.isEmpty ? nil : FilterPredicate(clauses: clauses)
    }
}
