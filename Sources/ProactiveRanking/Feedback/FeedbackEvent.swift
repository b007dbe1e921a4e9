import Foundation
import ProactiveCore

// MARK: - What feedback is about

/// What a piece of feedback refers to: one target (an intent suggestion), one
/// widget, or a whole app ("never suggest anything from this app").
package enum FeedbackScope: Sendable, Hashable, CustomStringConvertible {
    case target(TargetKey)
    case widget(WidgetID)
    case app(String)

    /// `target:KEY`, `widget:KEY` or `app:BUNDLE` (the stored and command-line form).
    package var description: String {
        switch self {
        case let .target(key): return "target:" + key.rawValue
        case let .widget(widget): return "widget:" + widget.key
        case let .app(app): return "app:" + app
        }
    }
}

/// The kinds of feedback a surface records.
public enum FeedbackKind: String, Sendable, Hashable, CaseIterable {
    /// The item was shown.
    case impression
    /// The user engaged with it (ran the suggestion, opened the widget). Counts as a donation.
    case tap
    /// "Not now": lowers the item for a while (decaying).
    case dismiss
    /// "Never suggest this": removes matching items until undone.
    case never
    /// Withdraws an earlier `never` with the same scope and context.
    case undoNever = "undo-never"
}

// MARK: - Never rules

/// A "never suggest this" rule: its scope, plus context conditions that must
/// all hold (empty = in every context). `focus=work` scoped to an app means
/// "never suggest this app while in the Work Focus".
package struct NeverRule: Sendable, Hashable, CustomStringConvertible {
    package var scope: FeedbackScope
    package var context: [String: String]

    package init(scope: FeedbackScope, context: [String: String] = [:]) {
        self.scope = scope
        self.context = context
    }

    /// Whether the rule applies in `context` (every condition equal).
    package func applies(in context: [String: String]) -> Bool {
        self.context.allSatisfy { context[$0.key] == $0.value }
    }

    package var description: String {
        guard !context.isEmpty else { return scope.description }
        return scope.description + " when " + context.keys.sorted().map { "\($0)=\(context[$0]!)" }.joined(separator: ",")
    }
}

// MARK: - Events

/// One recorded piece of feedback.
///
/// ```swift
/// let tap = FeedbackEvent(date: now, kind: .tap, scope: .target(weather.key), app: weather.app,
///                         action: WidgetConfiguration(intent: weather.intent, parameters: weather.parameters))
/// let donation = tap.donation(user: "u1")   // store it like any donation
/// ```
public struct FeedbackEvent: Sendable, Hashable {
    public var date: Date
    public var kind: FeedbackKind
    package var scope: FeedbackScope
    /// The app the scope belongs to.
    public var app: String
    /// The context the user was in; for `never`/`undoNever` the rule's conditions.
    public var context: [String: String]
    /// For taps: the intent and parameters the engagement ran (donated as such);
    /// nil = a plain launch of the app.
    public var action: WidgetConfiguration?

    package init(date: Date, kind: FeedbackKind, scope: FeedbackScope, app: String, context: [String: String] = [:],
                action: WidgetConfiguration? = nil) {
        self.date = date
        self.kind = kind
        self.scope = scope
        self.app = app
        self.context = context
        self.action = action
    }

    /// Builds a well-formed event for `scope`, taking the app from the scope.
    /// - Throws: `FeedbackError` when the kind does not fit the scope
    ///   (impressions, taps and dismissals are about one target or widget).
    package static func make(date: Date, kind: FeedbackKind, scope: FeedbackScope, app: String? = nil,
                            context: [String: String] = [:], action: WidgetConfiguration? = nil) throws(FeedbackError) -> FeedbackEvent {
        let owner: String
        switch scope {
        case let .app(name):
            guard kind == .never || kind == .undoNever else {
                throw FeedbackError(reason: "\(kind.rawValue) is about one target or widget, not a whole app (use never/undo-never for apps)")
            }
            owner = name
        case let .widget(widget):
            owner = widget.app
        case .target:
            guard let app else { throw FeedbackError(reason: "feedback about a target needs its app") }
            owner = app
        }
        if let app, app != owner { throw FeedbackError(reason: "the scope belongs to \(owner), not \(app)") }
        var action = action
        if kind == .tap, action == nil, case let .widget(widget) = scope { action = widget.configuration }
        return FeedbackEvent(date: date, kind: kind, scope: scope, app: owner, context: context, action: action)
    }

    /// The rule a `never`/`undoNever` event sets or withdraws.
    package var rule: NeverRule { NeverRule(scope: scope, context: context) }

    /// The donation an engagement stands for (nil for other kinds): the action's
    /// intent and parameters, or `open` for a launch, at the event's date and context.
    /// `utcOffset` is the offset the user's clock had (see `LocalClock`).
    public func donation(user: String, utcOffset: Int? = nil) -> Donation? {
        guard kind == .tap else { return nil }
        return Donation(user: user, app: app, intent: action?.intent ?? Donation.openIntent, parameters: action?.parameters ?? [:],
                        date: date, utcOffset: utcOffset, context: context)
    }
}

/// Why a feedback event could not be recorded.
package struct FeedbackError: Error, Equatable, Sendable, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { reason }
}
