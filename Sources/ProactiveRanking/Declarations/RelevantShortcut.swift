import Foundation
import ProactiveCore

// MARK: - Relevance providers

/// When an app says a relevant shortcut matters (`INRelevanceProvider`).
///
/// Only date windows and the empty list ("something new") drive Widget
/// Suggestions; location and daily-routine providers are stored so that a
/// declaration round-trips, and are ignored for widgets (docs/DOMAIN.md 4.1).
public enum RelevanceProvider: Sendable, Hashable {
    /// Relevant from `start` (inclusive) to `end` (exclusive).
    case date(start: Date, end: Date)
    /// Relevant near a place (watch face only).
    case location(latitude: Double, longitude: Double, radius: Double, identifier: String?)
    /// Relevant in a daily situation such as `"morning"` or `"gym"` (watch face only).
    case dailyRoutine(situation: String)

    /// The window of a date provider, nil for other kinds.
    public var window: DateInterval? {
        if case let .date(start, end) = self { return DateInterval(start: start, end: end) }
        return nil
    }

    /// The kind name used in JSON (`date`, `location`, `dailyRoutine`).
    public var kindName: String {
        switch self {
        case .date: return "date"
        case .location: return "location"
        case .dailyRoutine: return "dailyRoutine"
        }
    }
}

/// Whether a shortcut performs something or shows information (`INRelevantShortcutRole`).
public enum ShortcutRole: String, Sendable, Hashable, CaseIterable {
    case action
    case information
}

// MARK: - Relevant shortcut

/// One relevant shortcut an app declares (`INRelevantShortcut`): which widget to
/// suggest, optionally with the intent that configures it, and when.
///
/// ```swift
/// let purchases = RelevantShortcut(
///     widget: WidgetID(app: "com.example.bank", kind: "recentPurchases"),
///     role: .information,
///     providers: [.date(start: purchase, end: purchase + 1800)])
/// ```
public struct RelevantShortcut: Sendable, Hashable {
    /// The widget to suggest. Its `configuration` is the shortcut's intent (nil for a static widget).
    public var widget: WidgetID
    public var role: ShortcutRole
    /// Empty = "new content": show when the user usually uses the app.
    public var providers: [RelevanceProvider]
    /// An optional title shown with the suggestion.
    public var title: String?

    public init(widget: WidgetID, role: ShortcutRole = .information, providers: [RelevanceProvider] = [], title: String? = nil) {
        self.widget = widget
        self.role = role
        self.providers = providers
        self.title = title
    }

    /// The app that declared the shortcut.
    public var app: String { widget.app }

    /// The intent the shortcut carries, if any.
    public var intent: WidgetConfiguration? { widget.configuration }

    /// True when the provider list is empty: the widget has something new.
    public var isNewContent: Bool { providers.isEmpty }

    /// The date windows among the providers, in declaration order.
    public var windows: [DateInterval] { providers.compactMap(\.window) }

    /// True when the shortcut can drive Widget Suggestions: it has date windows
    /// or is "new content". A list of only location/daily-routine providers cannot.
    public var drivesWidgetSuggestions: Bool { isNewContent || providers.contains { $0.window != nil } }
}

// MARK: - One app's set

/// The whole set of relevant shortcuts one app has declared, and when.
///
/// An app replaces its set each time it declares (omitting a shortcut withdraws it).
public struct RelevantShortcutSet: Sendable, Hashable {
    public var app: String
    public var shortcuts: [RelevantShortcut]
    /// When the app declared this set; "new content" counts from here.
    public var declaredAt: Date

    public init(app: String, shortcuts: [RelevantShortcut], declaredAt: Date) {
        self.app = app
        self.shortcuts = shortcuts
        self.declaredAt = declaredAt
    }
}

// MARK: - Registry

/// Every app's current set of relevant shortcuts for one user.
///
/// `replace(_:)` implements the donation semantics: the new set replaces the
/// app's previous one entirely, so a shortcut left out is withdrawn at once.
public struct RelevantShortcutRegistry: Sendable, Hashable {
    public private(set) var sets: [String: RelevantShortcutSet] = [:]

    public init() {}

    public init(_ sets: [RelevantShortcutSet]) {
        for set in sets { replace(set) }
    }

    /// Replaces the app's whole set (an empty set withdraws all of the app's shortcuts).
    public mutating func replace(_ set: RelevantShortcutSet) {
        if set.shortcuts.isEmpty { sets[set.app] = nil } else { sets[set.app] = set }
    }

    /// All current shortcuts, ordered by app then declaration order.
    public var shortcuts: [(shortcut: RelevantShortcut, declaredAt: Date)] {
        sets.keys.sorted().flatMap { app in sets[app]!.shortcuts.map { ($0, sets[app]!.declaredAt) } }
    }

    public var isEmpty: Bool { sets.isEmpty }
}
