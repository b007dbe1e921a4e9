// MARK: - Schema changes between a legacy intent and the intent migrating it

/// One difference between a legacy intent's parameters and its migrated
/// intent's, with whether migration tolerates it.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A new parameter (allowed: legacy donations simply lack it).
        case added(ParameterDefinition)
        /// A legacy parameter dropped (allowed: its values are ignored).
        case removed(ParameterDefinition)
        /// Optional in the legacy intent, required now (allowed).
        case madeRequired
        /// Required in the legacy intent, optional now (refused: not among the allowed changes).
        case madeOptional
        /// int became double (allowed: every legacy value is still accepted).
        case widened(from: ParameterType, to: ParameterType)
        /// An entity's type name changed (allowed: entities are matched by identifier).
        case entityTypeRenamed(from: String, to: String)
        /// Enum cases added (allowed: every legacy value is still a case).
        case enumCasesAdded([String])
        /// Enum cases removed (refused: legacy donations may hold them).
        case enumCasesRemoved([String])
        /// The type changed otherwise (refused).
        case typeChanged(from: ParameterType, to: ParameterType)
        /// A parameter removed and another of an equivalent type added: most likely
        /// a rename, which breaks every stored donation and shortcut (refused).
        case likelyRenamed(from: String, to: String, type: ParameterType)
    }

    /// The parameter concerned (for a rename: the legacy name).
    public var parameter: String
    public var kind: Kind

    public init(parameter: String, kind: Kind) {
        self.parameter = parameter
        self.kind = kind
    }

    /// Whether migration accepts this change.
    public var isCompatible: Bool {
        switch kind {
        case .added, .removed, .madeRequired, .widened, .entityTypeRenamed, .enumCasesAdded: return true
        case .madeOptional, .enumCasesRemoved, .typeChanged, .likelyRenamed: return false
        }
    }

    public var description: String {
        switch kind {
        case let .added(definition):
            return "parameter \"\(parameter)\" added (\(definition.type)\(definition.isOptional ? ", optional" : ", required"))"
        case let .removed(definition): return "parameter \"\(parameter)\" removed (was \(definition.type))"
        case .madeRequired: return "parameter \"\(parameter)\" is now required (was optional)"
        case .madeOptional: return "parameter \"\(parameter)\" is now optional (was required); only optional -> required is allowed"
        case let .widened(from, to): return "parameter \"\(parameter)\" widened from \(from) to \(to)"
        case let .entityTypeRenamed(from, to): return "parameter \"\(parameter)\": entity type \(from) is now \(to) (entities keep their identifiers)"
        case let .enumCasesAdded(cases): return "parameter \"\(parameter)\": enum cases added: \(cases.joined(separator: ", "))"
        case let .enumCasesRemoved(cases):
            return "parameter \"\(parameter)\": enum cases removed: \(cases.joined(separator: ", ")) (legacy donations may hold them)"
        case let .typeChanged(from, to): return "parameter \"\(parameter)\" changed type from \(from) to \(to)"
        case let .likelyRenamed(from, to, type):
            return "parameter \"\(from)\" was removed and \"\(to)\" (same type \(type)) added: likely a rename of \"\(from)\" to \"\(to)\"; parameters must keep their names"
        }
    }
}

// MARK: - Report

/// The result of comparing one legacy intent with the intent that migrates it.
public struct SchemaCompatibilityReport: Sendable, Hashable, CustomStringConvertible {
    public var app: String
    public var legacyIntent: String
    public var newIntent: String
    /// Every difference, in the new intent's parameter order, then removals in legacy order.
    public var changes: [SchemaChange]

    public var isCompatible: Bool { changes.allSatisfy(\.isCompatible) }
    /// The changes that refuse the migration.
    public var incompatibilities: [SchemaChange] { changes.filter { !$0.isCompatible } }

    public var description: String {
        var lines = ["\(app): \(legacyIntent) -> \(newIntent): \(isCompatible ? "compatible" : "INCOMPATIBLE")"]
        if changes.isEmpty { lines.append("  same parameters and types") }
        for change in changes { lines.append("  \(change.isCompatible ? "ok     " : "refused") \(change)") }
        return lines.joined(separator: "\n")
    }
}

// MARK: - The check

/// Compares a legacy intent definition with the intent that migrates it.
///
/// Rules (docs/DOMAIN.md section 6): parameters keep their names and equivalent
/// types. Equivalent: the same type; int -> double; an entity of another type
/// name (identifiers carry over); an enum with at least the legacy cases.
/// Allowed: adding a parameter, removing one, making an optional one required.
/// Anything else is refused: a changed type, removed enum cases, a required
/// parameter made optional, and a removal paired with an addition of an
/// equivalent type, which is reported as a likely rename.
///
/// ```swift
/// let report = SchemaCompatibility.compare(legacy: legacyCoffee, new: orderCoffee)
/// report.isCompatible      // false
/// report.incompatibilities // [parameter "size" changed type from enum(small|large) to int]
/// ```
public enum SchemaCompatibility {
    /// - Parameter detectRenames: pair removed and added parameters of equivalent
    ///   types as likely renames (default). Pass false when a removal and an
    ///   addition are intended; both are then allowed.
    public static func compare(legacy: IntentDefinition, new: IntentDefinition, detectRenames: Bool = true) -> SchemaCompatibilityReport {
        var changes: [SchemaChange] = []
        var added: [ParameterDefinition] = []
        for parameter in new.parameters {
            guard let old = legacy.parameter(named: parameter.name) else { added.append(parameter); continue }
            changes += typeChanges(parameter.name, from: old.type, to: parameter.type)
            if old.isOptional && !parameter.isOptional { changes.append(SchemaChange(parameter: parameter.name, kind: .madeRequired)) }
            if !old.isOptional && parameter.isOptional { changes.append(SchemaChange(parameter: parameter.name, kind: .madeOptional)) }
        }
        var removed = legacy.parameters.filter { new.parameter(named: $0.name) == nil }
        if detectRenames {
            var unpaired: [ParameterDefinition] = []
            for addition in added {
                if let index = removed.firstIndex(where: { isEquivalent($0.type, addition.type) }) {
                    let old = removed.remove(at: index)
                    changes.append(SchemaChange(parameter: old.name, kind: .likelyRenamed(from: old.name, to: addition.name, type: addition.type)))
                } else {
                    unpaired.append(addition)
                }
            }
            added = unpaired
        }
        changes += added.map { SchemaChange(parameter: $0.name, kind: .added($0)) }
        changes += removed.map { SchemaChange(parameter: $0.name, kind: .removed($0)) }
        return SchemaCompatibilityReport(app: new.app, legacyIntent: legacy.name, newIntent: new.name, changes: changes)
    }

    /// Whether a value valid for `old` is valid for `new` (see the type's rules).
    public static func isEquivalent(_ old: ParameterType, _ new: ParameterType) -> Bool {
        typeChanges("", from: old, to: new).allSatisfy(\.isCompatible)
    }

    static func typeChanges(_ name: String, from old: ParameterType, to new: ParameterType) -> [SchemaChange] {
        switch (old, new) {
        case _ where old == new: return []
        case (.int, .double): return [SchemaChange(parameter: name, kind: .widened(from: old, to: new))]
        case let (.entity(from), .entity(to)): return [SchemaChange(parameter: name, kind: .entityTypeRenamed(from: from, to: to))]
        case let (.enumeration(oldCases), .enumeration(newCases)):
            var changes: [SchemaChange] = []
            let removed = oldCases.filter { !newCases.contains($0) }
            let added = newCases.filter { !oldCases.contains($0) }
            if !removed.isEmpty { changes.append(SchemaChange(parameter: name, kind: .enumCasesRemoved(removed))) }
            if !added.isEmpty { changes.append(SchemaChange(parameter: name, kind: .enumCasesAdded(added))) }
            return changes
        default: return [SchemaChange(parameter: name, kind: .typeChanged(from: old, to: new))]
        }
    }
}
