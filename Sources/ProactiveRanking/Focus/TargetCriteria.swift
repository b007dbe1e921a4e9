import ProactiveCore

// MARK: - What a target is about

/// The criteria each target is known to carry beyond its key: the parameters
/// its supported combination leaves out but on which all its donations agree.
///
/// "Message Alice" is the target `SendMessageIntent(recipient=alice)`; its
/// combination drops `account`, but if every donation of it said
/// `account=work`, the target is about the work account, and a Personal Focus
/// filtered to `account == "personal"` should not suggest it.
///
/// Rule: for a target with n donations, a parameter outside its key counts
/// when all n donations give it the same key text (entities by id). A
/// parameter some donation lacks or gives another value is unknown, and a
/// clause about it holds (`FilterPredicate.Missing.holds`).
///
/// - Complexity: O(d · p) to build for d donations of p parameters each.
public struct TargetCriteria: Sendable {
    /// Target -> parameter -> the value every donation agrees on.
    public private(set) var agreed: [TargetKey: [String: String]] = [:]

    public init() {}

    /// Criteria already worked out: target -> parameter -> the value all its donations agree on.
    public init(agreed: [TargetKey: [String: String]]) {
        self.agreed = agreed
    }

    public init(donations: [Donation], resolver: TargetResolver) {
        var seen: [TargetKey: (count: Int, values: [String: String?])] = [:]   // nil value = disagreement
        for donation in donations {
            let target = resolver.target(for: donation)
            var entry = seen[target.key] ?? (0, [:])
            if entry.count == 0 {
                for (name, value) in donation.parameters where target.parameters[name] == nil { entry.values[name] = .some(value.keyText) }
            } else {
                for (name, known) in entry.values where known != nil && donation.parameters[name]?.keyText != known {
                    entry.values[name] = .some(nil)
                }
            }
            entry.count += 1
            seen[target.key] = entry
        }
        for (key, entry) in seen {
            let values = entry.values.compactMapValues { $0 }
            if !values.isEmpty { agreed[key] = values }
        }
    }

    /// The criteria of a target: its key's parameters, plus the agreed ones.
    public func criteria(for key: TargetKey) -> [String: String] {
        let fromKey = TargetKeyParameters.values(of: key)
        guard let extra = agreed[key] else { return fromKey }
        return fromKey.merging(extra) { key, _ in key }
    }
}

// MARK: - A gate that knows the targets' history

/// The Focus filters as the ranking's gate, judging each target on its
/// criteria (`TargetCriteria`): key parameters plus those all its donations
/// agree on. Widgets are judged on their configuration's parameters plus the
/// agreed criteria of their configuration target.
public struct FocusCriteriaGate: FocusFilterGate {
    public var filters: FocusFilterEngine
    public var criteria: TargetCriteria

    public init(filters: FocusFilterEngine, criteria: TargetCriteria) {
        self.filters = filters
        self.criteria = criteria
    }

    public func allows(_ candidate: FocusCandidate, focus: String?, context: [String: String]) -> Bool {
        guard let focus, filters.filters[candidate.app] != nil,
              let predicate = filters.activePredicate(app: candidate.app, focus: focus) else { return true }
        var values = candidate.target.map(criteria.criteria(for:)) ?? [:]
        if let configuration = candidate.widget?.configuration {
            values.merge(configuration.parameters.mapValues(\.keyText)) { _, configured in configured }
        }
        return predicate.matches(values, missing: .holds)
    }
}
