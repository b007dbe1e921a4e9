import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Ranker

/// Computes every candidate's `RelevanceSignals` at a moment from what apps
/// declared, the user's feedback and the Focus gate. The model's probabilities
/// come from the caller (one `FittedModel.scores(at:)` per moment), so the
/// ranker stays pure and cheap to rebuild.
///
/// Build it once per user and set of declarations (O(shortcuts + targets));
/// `targetSignals` and `widgetSignals` are O(log n) in the feedback about the item.
public struct Ranker: Sendable {
    public let configuration: FusionConfiguration
    public let declarations: Declarations
    public let feedback: FeedbackIndex
    public let clock: LocalClock
    public let usage: AppUsageProfile?
    public let focusGate: any FocusFilterGate
    public let resolver: TargetResolver
    /// Known targets (from the model's training set and from shortcut intents) for summaries and apps.
    public private(set) var targets: [TargetKey: Target]

    /// The shortcuts (with their declaration dates) that carry each target's intent.
    private var shortcutsByTarget: [TargetKey: [(shortcut: RelevantShortcut, declaredAt: Date)]] = [:]
    private var shortcutsByWidget: [WidgetID: [(shortcut: RelevantShortcut, declaredAt: Date)]] = [:]
    /// Each configured widget's configuration target.
    private var widgetTargets: [WidgetID: TargetKey] = [:]
    private var ineligible: Set<TargetKey> = []
    /// False when no Focus gate and no app-wide rule can hide a plain target.
    private let gatesPlainTargets: Bool
    /// True when the Focus gate is `AllowAllFocusGate` (no candidate needs asking).
    private let gateAllowsAll: Bool

    /// Targets whose score is more than `modelWeight · p`: declared by a shortcut,
    /// ineligible, or with feedback of their own. Sorted by key.
    public private(set) var adjustedTargets: [TargetKey] = []
    /// What `targetSignals` looks up by key, resolved once per adjusted target (same order
    /// as `adjustedTargets`), so `targetSignals(adjusted:)` hashes no key.
    private var adjustedLookups: [TargetLookup] = []

    /// The key-dependent parts of `targetSignals`: the target's app, whether it is
    /// ineligible, the shortcuts carrying its intent, whether it has feedback of its own.
    private struct TargetLookup: Sendable {
        let key: TargetKey
        let app: String
        let isIneligible: Bool
        let shortcuts: [(shortcut: RelevantShortcut, declaredAt: Date)]?
        let hasFeedback: Bool
        /// The date windows of `shortcuts` in declaration order, when none of them is
        /// "new content" (nil otherwise): with no taps recorded, they are all the shortcuts add.
        let windows: [DateInterval]?
    }

    /// - Parameters:
    ///   - targets: the targets the model knows (`TrainingSet.targets`).
    ///   - resolver: resolves shortcut and widget intents to targets (and says which intents are eligible).
    ///   - usage: when the user uses each app ("new content" timing); nil = new content never shows.
    public init(configuration: FusionConfiguration = .standard, declarations: Declarations = Declarations(), feedback: FeedbackIndex = FeedbackIndex(),
                targets: [TargetKey: Target] = [:], resolver: TargetResolver = TargetResolver(), usage: AppUsageProfile? = nil,
                clock: LocalClock = LocalClock(), focusGate: any FocusFilterGate = AllowAllFocusGate()) {
        self.configuration = configuration
        self.declarations = declarations
        self.feedback = feedback
        self.clock = clock
        self.usage = usage
        self.focusGate = focusGate
        self.resolver = resolver
        self.targets = targets
        self.gateAllowsAll = focusGate is AllowAllFocusGate
        self.gatesPlainTargets = !gateAllowsAll || feedback.hasAppRules
        var adjusted = Set<TargetKey>()
        for (shortcut, declaredAt) in declarations.shortcuts.shortcuts where shortcut.drivesWidgetSuggestions {
            shortcutsByWidget[shortcut.widget, default: []].append((shortcut, declaredAt))
            if let target = shortcut.widget.configurationTarget(resolver: resolver) {
                shortcutsByTarget[target.key, default: []].append((shortcut, declaredAt))
                if self.targets[target.key] == nil { self.targets[target.key] = target }
                adjusted.insert(target.key)
            }
        }
        for widget in declarations.widgets {
            if let target = widget.configurationTarget(resolver: resolver) { widgetTargets[widget] = target.key }
        }
        var insertable = Set(shortcutsByWidget.keys)
        if !resolver.definitions.isEmpty {
            for target in self.targets.values {
                guard let definition = resolver.definitions.definition(app: target.app, intent: target.intent) else { continue }
                if !definition.isEligibleForSuggestions { ineligible.insert(target.key) }
                // An intent that configures a widget: its predictions drive that widget too (docs/DOMAIN.md 4.3).
                if let kind = definition.widgetKind {
                    let widget = WidgetID(app: target.app, kind: kind, configuration: WidgetConfiguration(intent: target.intent, parameters: target.parameters))
                    widgetTargets[widget] = target.key
                    insertable.insert(widget)
                }
            }
        }
        suggestibleWidgets = insertable.sorted()
        adjusted.formUnion(ineligible)
        for scope in feedback.itemScopes { if case let .target(key) = scope { adjusted.insert(key) } }
        adjustedTargets = adjusted.sorted()
        adjustedLookups = adjustedTargets.map(lookup)
    }

    private func lookup(_ key: TargetKey) -> TargetLookup {
        let shortcuts = shortcutsByTarget[key]
        var windows: [DateInterval]?
        if let shortcuts, !shortcuts.contains(where: { $0.shortcut.isNewContent }) {
            windows = shortcuts.flatMap { entry in
                entry.shortcut.providers.compactMap { provider -> DateInterval? in
                    guard case let .date(start, end) = provider, start <= end else { return nil }
                    return DateInterval(start: start, end: end)
                }
            }
        }
        return TargetLookup(key: key, app: app(of: key), isIneligible: ineligible.contains(key), shortcuts: shortcuts,
                            hasFeedback: feedback.itemScopes.contains(.target(key)), windows: windows)
    }

    /// The configuration target of a widget (nil for a static widget).
    public func configurationTarget(of widget: WidgetID) -> TargetKey? {
        if let key = widgetTargets[widget] { return key }
        return widget.configurationTarget(resolver: resolver)?.key
    }

    /// The widgets Widget Suggestions may insert, sorted: those with a relevant
    /// shortcut that has date windows or new content, and those configured by an
    /// intent the model knows (its definition has a `widgetKind`).
    public private(set) var suggestibleWidgets: [WidgetID] = []

    /// The app of a target (from its resolved target when known, else from the key).
    @inline(__always)
    public func app(of key: TargetKey) -> String { targets[key]?.app ?? key.app }

    // MARK: Signals

    /// The signals of an intent suggestion with model probability `probability`.
    package func targetSignals(_ key: TargetKey, probability: Double, moment: Moment) -> RelevanceSignals {
        targetSignals(lookup(key), probability: probability, moment: moment, focus: moment.context["focus"])
    }

    /// `targetSignals(adjustedTargets[slot], probability:moment:)` without hashing the key;
    /// `focus` is `moment.context["focus"]` (looked up once per moment by the caller).
    package func targetSignals(adjusted slot: Int, probability: Double, moment: Moment, focus: String?) -> RelevanceSignals {
        targetSignals(adjustedLookups[slot], probability: probability, moment: moment, focus: focus)
    }

    private func targetSignals(_ target: TargetLookup, probability: Double, moment: Moment, focus: String?) -> RelevanceSignals {
        var signals = RelevanceSignals(probability: probability)
        let key = target.key
        let app = target.app
        let scope = FeedbackScope.target(key)
        if target.isIneligible { signals.block = .ineligible; return signals }
        if feedback.hasRules, let rule = feedback.activeNeverRule(for: [scope, .app(app)], context: moment.context, at: moment.date) {
            signals.block = .never(rule)
            return signals
        }
        if !gateAllowsAll, !focusGate.allows(FocusCandidate(app: app, target: key), focus: focus, context: moment.context) {
            signals.block = .focus(focus)
            return signals
        }
        if let windows = target.windows, !feedback.hasTaps {
            // No tap can have used a window: the latest-ending one `t` is inside counts (as `applyShortcuts`).
            let t = moment.date
            for window in windows where window.start <= t && t < window.end {
                if signals.window == nil || window.end > signals.window!.end { signals.window = window }
            }
        } else if let shortcuts = target.shortcuts {
            // Used through the suggestion itself or through the shortcut's widget.
            applyShortcuts(shortcuts, usedBy: scope, or: { .widget($0.widget) }, app: app, moment: moment, to: &signals)
        }
        if target.hasFeedback { applyFeedback(scope, at: moment.date, to: &signals) }
        return signals
    }

    /// The signals of a widget. `probability` is the model's probability of the
    /// widget's configuration target (0 for a static widget). `timeline` says
    /// whether its timeline counts (Smart Rotate of a widget in the stack).
    package func widgetSignals(_ widget: WidgetID, probability: Double, timeline: Bool, moment: Moment) -> RelevanceSignals {
        var signals = RelevanceSignals(probability: probability)
        let scope = FeedbackScope.widget(widget)
        let configuration = configurationTarget(of: widget)
        var scopes: [FeedbackScope] = [scope, .app(widget.app)]
        if let configuration { scopes.append(.target(configuration)) }
        if feedback.hasRules, let rule = feedback.activeNeverRule(for: scopes, context: moment.context, at: moment.date) {
            signals.block = .never(rule)
            return signals
        }
        if !gateAllowsAll,
           !focusGate.allows(FocusCandidate(app: widget.app, target: configuration, widget: widget), focus: moment.context["focus"], context: moment.context) {
            signals.block = .focus(moment.context["focus"])
            return signals
        }
        if let shortcuts = shortcutsByWidget[widget] {
            // Used through the widget itself or through its configuration intent.
            applyShortcuts(shortcuts, usedBy: scope, or: { _ in configuration.map { .target($0) } }, app: widget.app, moment: moment, to: &signals)
        }
        if timeline, let reading = declarations.timelines[widget]?.reading(at: moment.date) { signals.timeline = reading }
        applyFeedback(scope, at: moment.date, to: &signals)
        return signals
    }

    // MARK: Pieces

    /// Date windows and new content of `shortcuts`; a window (or new content)
    /// engaged with through `usedBy` or the shortcut's `other` scope no longer counts.
    private func applyShortcuts(_ shortcuts: [(shortcut: RelevantShortcut, declaredAt: Date)], usedBy scope: FeedbackScope,
                                or other: (RelevantShortcut) -> FeedbackScope?, app: String, moment: Moment, to signals: inout RelevanceSignals) {
        let t = moment.date
        for (shortcut, declaredAt) in shortcuts {
            // The second scope only matters through taps (built only when there are some).
            let second = feedback.hasTaps ? other(shortcut) : nil
            if shortcut.isNewContent {
                guard declaredAt <= t, t.timeIntervalSince(declaredAt) < configuration.newContentLifetime, let usage else { continue }
                let tap = max(feedback.lastTap(scope, atOrBefore: t) ?? .distantPast, second.flatMap { feedback.lastTap($0, atOrBefore: t) } ?? .distantPast)
                let level = tap >= declaredAt ? 0 : usage.level(app: app, at: t, clock: clock, utcOffset: moment.utcOffset)
                if level > signals.newContent {
                    signals.newContent = level
                    signals.newContentSince = declaredAt
                }
                continue
            }
            for provider in shortcut.providers {
                guard case let .date(start, end) = provider, start <= t, t < end else { continue }
                let window = DateInterval(start: start, end: end)
                if feedback.wasTapped(scope, in: window, atOrBefore: t) || second.map({ feedback.wasTapped($0, in: window, atOrBefore: t) }) == true {
                    signals.usedWindow = window
                } else if signals.window == nil || window.end > signals.window!.end {
                    signals.window = window
                }
            }
        }
    }

    private func applyFeedback(_ scope: FeedbackScope, at t: Date, to signals: inout RelevanceSignals) {
        guard feedback.itemScopes.contains(scope) else { return }
        let dismissal = feedback.dismissalFactor(scope, at: t, strength: configuration.dismissalStrength, halfLife: configuration.dismissalHalfLife)
        signals.dismissal = dismissal.factor
        signals.lastDismissal = dismissal.last
        let impressions = feedback.unansweredImpressions(scope, at: t, window: configuration.fatigueWindow)
        signals.impressions = impressions
        signals.fatigue = pow(1 - configuration.impressionFatigue, Double(impressions))
    }

    /// Whether an unadjusted target (model signal only) may be shown: app-level
    /// never rules and the Focus gate. Cheap when neither is configured.
    @inline(__always)
    func allowsPlainTarget(_ key: TargetKey, moment: Moment) -> Bool {
        guard gatesPlainTargets else { return true }
        let app = app(of: key)
        if feedback.hasAppRules, feedback.activeNeverRule(for: [.app(app)], context: moment.context, at: moment.date) != nil { return false }
        return focusGate.allows(FocusCandidate(app: app, target: key), focus: moment.context["focus"], context: moment.context)
    }
}
