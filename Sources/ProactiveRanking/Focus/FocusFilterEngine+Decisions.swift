import ProactiveCore

// MARK: - Notifications

/// A notification an app posts, with its filter criteria (empty: none).
package struct FocusNotification: Sendable, Hashable {
    package var app: String
    package var criteria: FilterCriteria

    package init(app: String, criteria: FilterCriteria = FilterCriteria()) {
        self.app = app
        self.criteria = criteria
    }
}

/// Whether a notification is shown or silenced, and why (a sentence for people).
public struct NotificationDecision: Sendable, Hashable {
    public var isDelivered: Bool
    public var reason: String
    /// The predicate the criteria were checked against, if any.
    package var predicate: FilterPredicate?
}

/// Whether a target (a suggestion, a widget configuration) may surface in the active Focus.
package struct FocusFilterDecision: Sendable, Hashable {
    package var isAllowed: Bool
    package var reason: String
}

extension FocusFilterEngine {
    /// Decides a notification in the active Focus:
    /// - no Focus on, no predicate for the app in that Focus, or no criteria on the
    ///   notification -> delivered;
    /// - otherwise delivered exactly when the criteria match the predicate, a clause
    ///   about a key the criteria lack counting as not matching (`Missing.fails`).
    package func deliver(_ notification: FocusNotification, activeFocus: String?) -> NotificationDecision {
        guard let activeFocus = activeFocus.map(FocusName.normalize) else {
            return NotificationDecision(isDelivered: true, reason: "no Focus is on", predicate: nil)
        }
        guard let predicate = activePredicate(app: notification.app, focus: activeFocus) else {
            return NotificationDecision(isDelivered: true, reason: "\(notification.app) has no filter predicate in Focus \(activeFocus)", predicate: nil)
        }
        guard !notification.criteria.isEmpty else {
            return NotificationDecision(isDelivered: true, reason: "the notification carries no filter criteria", predicate: predicate)
        }
        let criteria = notification.criteria.values
        if let clause = predicate.failingClause(criteria, missing: .fails) {
            let given = criteria[clause.key].map { "\(clause.key)=\($0)" } ?? "no \(clause.key)"
            return NotificationDecision(isDelivered: false,
                                        reason: "criteria \(given) do not match \(FilterPredicate.format(clause)) (Focus \(activeFocus), predicate \(predicate))",
                                        predicate: predicate)
        }
        return NotificationDecision(isDelivered: true, reason: "criteria \(notification.criteria) match \(predicate) (Focus \(activeFocus))", predicate: predicate)
    }

    // MARK: Suggestions and widgets

    /// Decides whether a target of `app` with `parameters` may be suggested (or a
    /// widget so configured chosen) in the active Focus.
    ///
    /// Rule: the app's active predicate (see `activePredicate`) is evaluated on the
    /// target's parameters (key texts; entities by id). A clause about a parameter
    /// the target does not have holds (`Missing.holds`): "Open Mail" stays allowed
    /// in a Focus filtered to the personal account, "Send from the work account" does not.
    package func decision(app: String, parameters: [String: ParameterValue], activeFocus: String?) -> FocusFilterDecision {
        guard let activeFocus = activeFocus.map(FocusName.normalize) else {
            return FocusFilterDecision(isAllowed: true, reason: "no Focus is on")
        }
        guard let predicate = activePredicate(app: app, focus: activeFocus) else {
            return FocusFilterDecision(isAllowed: true, reason: "\(app) has no filter in Focus \(activeFocus)")
        }
        let values = parameters.mapValues(\.keyText)
        if let clause = predicate.failingClause(values, missing: .holds) {
            return FocusFilterDecision(isAllowed: false,
                                       reason: "\(clause.key)=\(values[clause.key]!) does not match \(FilterPredicate.format(clause)) (Focus \(activeFocus))")
        }
        return FocusFilterDecision(isAllowed: true, reason: "matches \(predicate) (Focus \(activeFocus))")
    }

    /// Shorthand for `decision(...).isAllowed`.
    public func allows(app: String, parameters: [String: ParameterValue], activeFocus: String?) -> Bool {
        decision(app: app, parameters: parameters, activeFocus: activeFocus).isAllowed
    }

    /// Whether a resolved target may surface in the active Focus.
    public func allows(target: Target, activeFocus: String?) -> Bool {
        allows(app: target.app, parameters: target.parameters, activeFocus: activeFocus)
    }
}
