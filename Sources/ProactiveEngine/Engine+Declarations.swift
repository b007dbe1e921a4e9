import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore

// MARK: - What apps declare: intent definitions, relevant shortcuts, widget timelines

/// The writes an app (or the device owner on its behalf) makes besides donating: the intent
/// definitions it ships, the relevant shortcuts it declares and its widgets' timelines. Each
/// replaces what was stored for the same app (or widget) in one call; a user's saved live
/// states refit on their next read after a change of definitions, and declarations take
/// effect at the next ranking (`suggest`, `stackDecision`).
///
/// ```swift
/// try engine.storeDefinitions([
///     IntentDefinition(app: "com.example.coffee", name: "OrderCoffeeIntent",
///                      parameters: [ParameterDefinition(name: "item", type: .string)],
///                      combinations: [ParameterCombination(parameters: ["item"], summary: "Order a ${item}")],
///                      widgetKind: "order"),
/// ])
/// let order = WidgetID(app: "com.example.coffee", kind: "order")
/// try engine.declareShortcuts(RelevantShortcutSet(app: "com.example.coffee",
///                                                 shortcuts: [RelevantShortcut(widget: order, providers: [.date(start: start, end: start + 1_800)])],
///                                                 declaredAt: Date()), user: "me")
/// try engine.replaceTimelines([WidgetTimeline(widget: order,
///                                             entries: [TimelineEntry(date: start, score: 50, duration: 1_800)])],
///                             user: "me")
/// ```
extension Engine {
    // MARK: Intent definitions

    /// Stores apps' intent definitions, replacing the stored definitions of every app they name
    /// (other apps' stay). Owner only.
    /// - Returns: the apps whose definitions were replaced.
    /// - Throws: `DefinitionError` when the definitions contradict each other (an intent that
    ///   migrates one defined as current); `StoreError(.invalidRequest)` for an intent defined twice;
    ///   `EngineError(.invalidRequest)` for an empty list; `StoreError(.accessDenied)` under an
    ///   app's access. Nothing is stored then.
    @discardableResult
    public func storeDefinitions(_ definitions: [IntentDefinition]) throws -> Set<String> {
        try access.requireAdministrator(to: "store intent definitions")
        _ = try IntentDefinitionSet(definitions)
        let apps = Set(definitions.map(\.app))
        guard !apps.isEmpty else { throw EngineError(.invalidRequest, "no intent definition to store") }
        try storage.definitions.replace(with: definitions, apps: apps)
        return apps
    }

    /// Removes an app's stored intent definitions. Owner only.
    /// - Returns: how many were removed (0 when the app had none).
    @discardableResult
    public func removeDefinitions(app: String) throws -> Int {
        try access.requireAdministrator(to: "remove intent definitions")
        let store = storage.definitions
        let before = try store.all().filter { $0.app == app }.count
        try store.replace(with: [], apps: [app])
        return before
    }

    /// Applies a checked intent migration: the new file's apps have their stored definitions
    /// replaced by `plan.apply(to:)` of theirs (other apps' stay), so legacy donations, shortcuts and
    /// widgets resolve to the new intents. Owner only.
    /// - Returns: for each of `plan.reports`, how many stored donations of the legacy intent now
    ///   count for the new one (same order).
    /// - Throws: `EngineError(.invalidRequest)` when the plan has a refusal (nothing stored);
    ///   `MigrationError`; `StoreError(.accessDenied)` under an app's access.
    ///
    /// ```swift
    /// let plan = MigrationPlan(legacy: legacy, new: current, detectRenames: true)
    /// let counts = try engine.applyMigration(plan)   // [12]: 12 legacy donations now count for the new intent
    /// ```
    public func applyMigration(_ plan: MigrationPlan) throws -> [Int] {
        try access.requireAdministrator(to: "migrate intent definitions")
        if let refusal = plan.refusal { throw EngineError(.invalidRequest, "migration refused: \(refusal)") }
        let store = storage.definitions
        let apps = Set(plan.new.map(\.app))
        try store.replace(with: try plan.apply(to: try store.all().filter { apps.contains($0.app) }), apps: apps)
        let statistics = try donations.statistics(matching: .everything)
        return plan.reports.map { report in
            statistics.byIntent.first { $0.app == report.app && $0.name == report.legacyIntent }?.donations ?? 0
        }
    }

    /// The stored intent definitions, without `definitionsOverlay` (see `definitions()` for both).
    public func storedDefinitions() throws -> [IntentDefinition] {
        try storage.definitions.all()
    }

    // MARK: Relevant shortcuts

    /// `user`'s relevant shortcuts and widget timelines that the acting party may see (an app: its own),
    /// decoded. A stored row that no longer decodes is skipped and told to `skippedStoredData`.
    /// - Throws: store failures.
    public func visibleDeclarations(user: String) throws -> Declarations {
        try Self.declarations(AppScopedDeclarationStore(storage.declarations, access: access), user: user,
                              skipped: skippedStoredData)
    }

    /// Replaces `set.app`'s relevant shortcuts for `user` with `set` (an empty set withdraws them
    /// all). `utcOffset` (seconds east of UTC) is the offset the stored dates are written in.
    /// - Returns: how many shortcuts the replaced set held, or nil when the app had none stored.
    /// - Throws: `StoreError(.accessDenied)` when the acting app is not `set.app`.
    @discardableResult
    public func declareShortcuts(_ set: RelevantShortcutSet, user: String, utcOffset: Int = 0) throws -> Int? {
        try access.require(app: set.app, to: "declare relevant shortcuts for")
        let store = AppScopedDeclarationStore(storage.declarations, access: access)
        let previous = try store.shortcutSets(user: user).first { $0.app == set.app }.map { stored in
            if case let .array(items)? = try? JSONParser.parse(stored.shortcutsJSON) { items.count } else { 0 }
        }
        try store.replaceShortcutSet(StoredShortcutSet(user: user, app: set.app, declaredAt: set.declaredAt,
                                                       shortcutsJSON: RelevantShortcutCodec.encodeShortcuts(set.shortcuts, utcOffset: utcOffset)))
        return previous
    }

    // MARK: Widget timelines

    /// Replaces the timeline of each widget in `timelines` for `user` (a timeline without entries
    /// removes the widget's). Every widget must be the acting app's: otherwise nothing is stored.
    /// - Throws: `StoreError(.accessDenied)` for another app's widget; `StoreError(.invalidRequest)`
    ///   for a widget whose app is not a bundle identifier.
    public func replaceTimelines(_ timelines: [WidgetTimeline], user: String) throws {
        for timeline in timelines { try access.require(app: timeline.widget.app, to: "replace the widget timelines of") }
        let store = AppScopedDeclarationStore(storage.declarations, access: access)
        for timeline in timelines {
            try store.replaceTimeline(StoredTimeline(user: user, widget: timeline.widget.key, app: timeline.widget.app,
                                                     timelineJSON: WidgetTimelineCodec.encode(timeline)))
        }
    }
}
