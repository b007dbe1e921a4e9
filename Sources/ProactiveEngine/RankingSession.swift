import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - Everything ranking needs for one user

/// One user's live model with the apps' declarations, the user's feedback
/// and the Focus filters: what `suggest` and the Smart Stack rank with.
public struct RankingSession: Sendable {
    let engine: Engine
    public let live: LiveModel
    public let declarations: Declarations
    public let feedback: [FeedbackEvent]
    public let gate: FocusCriteriaGate

    public var user: String { live.user }
    public var model: any LiveLearningModel { live.model }
    public var zone: TimeZone? { live.zone }
    public var timeline: FocusTimeline { live.timeline }

    /// The offset of the user's clock at `date`: the zone's, else `fallback`.
    public func offset(at date: Date, fallback: Int? = nil) -> Int {
        live.zone?.secondsFromGMT(for: date) ?? fallback ?? 0
    }

    public var clock: LocalClock { LocalClock(timeZone: live.zone) }

    /// The ranker, with "new content" timed by the model's hours on the day starting at `dayStart`.
    public func ranker(configuration: FusionConfiguration = .standard, dayStart: Date, utcOffset: Int, context: [String: String]) -> Ranker {
        let newContentApps = Set(declarations.shortcuts.shortcuts.filter { $0.shortcut.isNewContent }.map(\.shortcut.app))
        let usage = newContentApps.isEmpty ? nil
            : AppUsageProfile.sample(live.model, apps: newContentApps, dayStart: dayStart, utcOffset: utcOffset, context: context)
        return Ranker(configuration: configuration, declarations: declarations, feedback: FeedbackIndex(feedback), targets: live.targets,
                      resolver: live.resolver, usage: usage, clock: clock, focusGate: gate)
    }

    /// Local midnight of `date`'s day on the user's clock.
    public func dayStart(containing date: Date, utcOffset: Int) -> Date {
        let reading = clock.read(date, writtenOffset: utcOffset)
        return date.addingTimeInterval(-reading.minuteOfDay * 60)
    }

    /// Suggestions at a moment (see `Engine.suggest`).
    public func suggest(at date: Date, utcOffset: Int? = nil, context: [String: String] = [:], k: Int = 4,
                        developerMode: Bool = false) throws -> SuggestionResult {
        let moment = try engine.moment(for: live, at: date, utcOffset: utcOffset, context: context)
        let offset = moment.utcOffset ?? 0
        let ranker = ranker(dayStart: dayStart(containing: date, utcOffset: offset), utcOffset: offset, context: moment.context)
        var suggestions = SuggestionRanker(ranker: ranker)
        let distribution = live.model.distribution(at: moment)
        // The floors apply to P(acts now) x P(target | acts now).
        let activity = ActiveNowModel.level(of: live.model, at: moment)  // borrowed: no copy of the model
        let list = suggestions.suggest(activity == 1 ? distribution : distribution.scaled(by: activity), moment: moment,
                                       k: developerMode ? max(k, distribution.count + ranker.adjustedTargets.count) : k,
                                       developerMode: developerMode)
        return SuggestionResult(moment: moment, model: live.model.name, suggestions: list, distribution: distribution,
                                activity: activity, notes: live.notes)
    }

    // MARK: Widgets by name

    /// Every widget the user's declarations and intent definitions know, sorted.
    public func widgetCatalogue(_ ranker: Ranker) -> [WidgetID] {
        Set(ranker.suggestibleWidgets + declarations.widgets).sorted()
    }

    /// The widget a name designates: a full key, `app/kind`, a kind, the kind's last
    /// component, or the app's last component. A kind belongs to its app: a name that
    /// matches widgets of several apps designates none of them (it is refused, listing
    /// them as `app/kind`). Among several configurations of the app's matching kind,
    /// the one whose intent the user used most wins (then the first key).
    /// - Throws: `EngineError(.invalidRequest)` for a name that matches no widget, or widgets of several apps.
    public func resolveWidget(_ name: String, in catalogue: [WidgetID], ranker: Ranker) throws -> WidgetID {
        try Self.resolveWidget(name, in: catalogue, uses: live.uses, ranker: ranker)
    }

    /// `resolveWidget` with the uses of each target given.
    public static func resolveWidget(_ name: String, in catalogue: [WidgetID], uses: [TargetKey: Double], ranker: Ranker) throws -> WidgetID {
        var matches = catalogue.filter { $0.matches(name: name) }
        if matches.isEmpty {
            matches = catalogue.filter { $0.app.split(separator: ".").last.map { $0.lowercased() == name.lowercased() } ?? false }
        }
        guard !matches.isEmpty else {
            let known = catalogue.map(\.key).joined(separator: "\n  ")
            throw EngineError(.invalidRequest, "no widget named \"\(name)\"; known widgets:\n  "
                              + (known.isEmpty ? "(none: no intent definition with a widget kind matches the user's donations, "
                                 + "and no relevant shortcut or timeline is declared)" : known))
        }
        let apps = Set(matches.map(\.app))
        guard apps.count == 1 else {
            let named = Set(matches.map { $0.app + "/" + $0.kind }).sorted().joined(separator: ", ")
            throw EngineError(.invalidRequest, "\"\(name)\" names widgets of \(apps.count) apps; name one as app/kind: \(named)")
        }
        func count(_ widget: WidgetID) -> Double { ranker.configurationTarget(of: widget).flatMap { uses[$0] } ?? 0 }
        return matches.min { count($0) != count($1) ? count($0) > count($1) : $0 < $1 }!
    }

    /// A stack's widgets from their names, top first (each as `resolveWidget` reads it).
    /// A name that no widget of the catalogue answers to, but that names a widget kind an app's
    /// intent definitions declare (the user's donations of that intent were deleted, or never
    /// made, so no configuration of it is known, and no declaration names it), is skipped: the
    /// stack goes on without it and `skipped` says why, one sentence per name.
    /// - Throws: `EngineError(.invalidRequest)` for a name neither the catalogue nor the
    ///   definitions know, a name that matches widgets of several apps, a widget named twice,
    ///   or when no widget is left.
    public func stackWidgets(_ names: [String], in catalogue: [WidgetID], ranker: Ranker) throws -> (widgets: [WidgetID], skipped: [String]) {
        var widgets: [WidgetID] = []
        var skipped: [String] = []
        for name in names {
            let widget: WidgetID
            do { widget = try resolveWidget(name, in: catalogue, ranker: ranker) } catch {
                guard let kind = definedWidgetWithoutConfiguration(name) else { throw error }
                skipped.append("\(name) (\(kind.app)/\(kind.kind)) skipped: user \(user) has no donation of the intent that "
                               + "configures it (deleted, or never donated) and no app declares it")
                continue
            }
            guard !widgets.contains(widget) else { throw EngineError(.invalidRequest, "the stack names \(widget.displayName) twice") }
            widgets.append(widget)
        }
        guard !widgets.isEmpty else {
            throw EngineError(.invalidRequest, skipped.isEmpty ? "a stack needs at least one widget"
                              : "no widget of the stack can be shown: " + skipped.joined(separator: "; "))
        }
        return (widgets, skipped)
    }

    /// The widget kind an intent definition declares that `name` designates (as `resolveWidget`
    /// matches names), when exactly one app's definitions have one.
    func definedWidgetWithoutConfiguration(_ name: String) -> WidgetID? {
        let defined = Set(live.resolver.definitions.definitions.compactMap { definition in
            definition.widgetKind.map { WidgetID(app: definition.app, kind: $0) }
        })
        var matches = defined.filter { $0.matches(name: name) }
        if matches.isEmpty {
            matches = defined.filter { $0.app.split(separator: ".").last.map { $0.lowercased() == name.lowercased() } ?? false }
        }
        return Set(matches.map(\.app)).count == 1 ? matches.min() : nil
    }

    /// The user's events from shortly before `start` to `end` (a played day's history).
    public func history(from start: Date, to end: Date, before: Int = 16) throws -> [Event] {
        let earlier = try engine.states.recentDonations(ofUser: user, atOrBefore: start.addingTimeInterval(-0.001), limit: before)
        let day = try engine.states.donations(ofUser: user, from: start, to: end)
        return (earlier + day).map { live.inputs.event(live.inputs.prepare($0)) }
    }
}
