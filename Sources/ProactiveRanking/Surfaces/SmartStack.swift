import Foundation

// MARK: - A stack and its settings

/// The per-stack switches users have, plus the developer mode.
public struct StackSettings: Sendable, Hashable {
    /// Smart Rotate: turn the stack to a widget already in it when that widget is relevant.
    public var smartRotate: Bool
    /// Widget Suggestions: insert a widget the stack does not contain while it is relevant.
    public var widgetSuggestions: Bool
    /// Lifts the confidence floors and the rate limits; decisions list every candidate with its score.
    public var developerMode: Bool

    public init(smartRotate: Bool = true, widgetSuggestions: Bool = true, developerMode: Bool = false) {
        self.smartRotate = smartRotate
        self.widgetSuggestions = widgetSuggestions
        self.developerMode = developerMode
    }
}

/// A Smart Stack: the user's widgets in their order (the first is where the
/// stack rests when nothing has been relevant) and its settings.
public struct SmartStack: Sendable, Hashable {
    public var widgets: [WidgetID]
    public var settings: StackSettings

    /// - Precondition: `widgets` is not empty and has no duplicates.
    public init(widgets: [WidgetID], settings: StackSettings = StackSettings()) {
        precondition(!widgets.isEmpty, "a stack holds at least one widget")
        precondition(Set(widgets).count == widgets.count, "a stack holds each widget once")
        self.widgets = widgets
        self.settings = settings
    }

    public func contains(_ widget: WidgetID) -> Bool { widgets.contains(widget) }
}

// MARK: - Scores and decisions

/// A widget with its fused score at one instant.
package struct ScoredWidget: Sendable, Hashable {
    package var widget: WidgetID
    package var score: Double
    package var signals: RelevanceSignals
    /// True for widgets in the stack (Smart Rotate candidates), false for insertion candidates.
    package var inStack: Bool
}

/// A widget Widget Suggestions put on top of the stack.
public struct InsertedWidget: Sendable, Hashable {
    public var widget: WidgetID
    public var since: Date
    /// When it is expected to leave (the end of the declared window or timeline
    /// entry that brought it); nil when it rests on a prediction that fades.
    public var expectedEnd: Date?
    public var score: Double
    package var signals: RelevanceSignals
}

/// Why the top widget is on top.
package enum TopReason: String, Sendable, Hashable {
    /// Nothing is relevant enough: the stack stays where it was (rotates nowhere).
    case resting
    /// Smart Rotate turned to it and it is still relevant.
    case rotated
    /// Widget Suggestions inserted it.
    case inserted
}

/// A change a step made.
package enum StackChange: Sendable, Hashable {
    case rotated(from: WidgetID, to: WidgetID)
    case inserted(WidgetID)
    case removed(WidgetID)
}

/// What a stack shows at one instant and why.
public struct StackDecision: Sendable, Hashable {
    public var date: Date
    /// The widget on top (an inserted one while there is one).
    public var top: WidgetID
    package var reason: TopReason
    /// The top widget's score and signals now.
    public var topScore: Double
    package var topSignals: RelevanceSignals
    /// The widgets inserted now, in insertion order.
    public var inserted: [InsertedWidget]
    /// Changes this step made, in order (a removal before an insertion).
    package var changes: [StackChange]
    /// Every candidate (in the stack and insertable), best first; what developer mode lists.
    package var candidates: [ScoredWidget]
    /// Widgets named for the stack but left out, one sentence each saying which and why
    /// (a widget nothing configures any more, see `RankingSession.stackWidgets`).
    public var skipped: [String] = []
}

/// What carries over from one step to the next (explicit: the engine keeps no state).
public struct StackState: Sendable, Hashable {
    /// The widget Smart Rotate turned to; nil = where the user left it (the first widget).
    public var rotation: WidgetID?
    public var rotatedAt: Date?
    /// The inserted widgets, in insertion order.
    public var inserted: [InsertedWidget]
    /// The widget shown on top at the last step (sticky among inserted widgets).
    public var shown: WidgetID?
    /// The local day `insertionsToday` counts for.
    public var insertionDay: Int?
    public var insertionsToday: Int

    public init(rotation: WidgetID? = nil, rotatedAt: Date? = nil, inserted: [InsertedWidget] = [], shown: WidgetID? = nil,
                insertionDay: Int? = nil, insertionsToday: Int = 0) {
        self.rotation = rotation
        self.rotatedAt = rotatedAt
        self.inserted = inserted
        self.shown = shown
        self.insertionDay = insertionDay
        self.insertionsToday = insertionsToday
    }
}
