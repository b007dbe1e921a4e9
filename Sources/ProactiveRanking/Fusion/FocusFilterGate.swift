import ProactiveCore

// MARK: - Focus filter hook

/// What a Focus filter is asked about: an intent suggestion (`target`) or a widget.
public struct FocusCandidate: Sendable, Hashable {
    public var app: String
    public var target: TargetKey?
    public var widget: WidgetID?

    public init(app: String, target: TargetKey? = nil, widget: WidgetID? = nil) {
        self.app = app
        self.target = target
        self.widget = widget
    }
}

/// Decides whether a candidate may be shown while a Focus is active.
///
/// The ranking asks the gate once per candidate it considers showing (never for
/// candidates already ranked out), with the moment's `focus` context value (nil
/// when no Focus is on) and the whole context. Focus filters proper (an app's
/// `SetFocusFilterIntent` and its predicate) implement this protocol elsewhere;
/// `AllowAllFocusGate` and `ClosureFocusGate` cover the simple cases.
public protocol FocusFilterGate: Sendable {
    func allows(_ candidate: FocusCandidate, focus: String?, context: [String: String]) -> Bool
}

/// Lets everything through (no Focus filters configured).
public struct AllowAllFocusGate: FocusFilterGate {
    public init() {}
    public func allows(_ candidate: FocusCandidate, focus: String?, context: [String: String]) -> Bool { true }
}

/// A gate from a closure.
///
/// ```swift
/// // In the Work Focus, only work apps.
/// let gate = ClosureFocusGate { candidate, focus, _ in focus != "work" || workApps.contains(candidate.app) }
/// ```
package struct ClosureFocusGate: FocusFilterGate {
    private let decide: @Sendable (FocusCandidate, String?, [String: String]) -> Bool

    package init(_ decide: @escaping @Sendable (FocusCandidate, String?, [String: String]) -> Bool) {
        self.decide = decide
    }

    package func allows(_ candidate: FocusCandidate, focus: String?, context: [String: String]) -> Bool {
        decide(candidate, focus, context)
    }
}
