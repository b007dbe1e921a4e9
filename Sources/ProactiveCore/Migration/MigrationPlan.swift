// MARK: - Migration errors

/// Why a migration is refused; `description` names the intent and, for a schema
/// incompatibility, the parameter.
public struct MigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var intent: String
    /// The parameter at fault, when one is.
    public var parameter: String?
    public var reason: String

    public init(intent: String, parameter: String? = nil, reason: String) {
        self.intent = intent
        self.parameter = parameter
        self.reason = reason
    }

    public var description: String {
        parameter.map { "\(intent).\($0): \(reason)" } ?? "\(intent): \(reason)"
    }
}

// MARK: - A migration plan

/// Checks a set of new intent definitions against the legacy definitions they
/// migrate, and applies them to a list of stored definitions.
///
/// Each new definition with `migratesFrom` is paired with the legacy
/// definition of the same app whose name it gives. Once applied, the legacy
/// definition is replaced by the new one, and `IntentDefinitionSet` /
/// `TargetResolver` map the legacy class name onto it: legacy donations, relevant
/// shortcuts and widget configurations naming the legacy intent resolve to the
/// same targets as new ones, so both versions can arrive side by side.
///
/// ```swift
/// let plan = MigrationPlan(legacy: try IntentDefinitionSet.parse(old), new: try IntentDefinitionSet.parse(new))
/// plan.reports.forEach { print($0) }
/// let stored = try plan.apply(to: currentDefinitions)   // throws naming the parameter when refused
/// ```
public struct MigrationPlan: Sendable {
    public var legacy: [IntentDefinition]
    public var new: [IntentDefinition]
    /// One report per new definition that migrates a legacy intent found in `legacy`.
    public private(set) var reports: [SchemaCompatibilityReport] = []
    /// Problems that are not about parameters (a legacy intent not found, nothing migrated).
    public private(set) var problems: [MigrationError] = []

    public init(legacy: [IntentDefinition], new: [IntentDefinition], detectRenames: Bool = true) {
        self.legacy = legacy
        self.new = new
        let migrating = new.filter { $0.migratesFrom != nil }
        if migrating.isEmpty {
            problems.append(MigrationError(intent: new.first?.name ?? "(none)", reason: "no new intent declares migratesFrom, so there is nothing to migrate"))
        }
        for definition in migrating {
            let legacyName = definition.migratesFrom!
            guard let old = legacy.first(where: { $0.app == definition.app && $0.name == legacyName }) else {
                let known = legacy.filter { $0.app == definition.app }.map(\.name)
                problems.append(MigrationError(intent: definition.name, reason: "migrates \(legacyName) of \(definition.app), which the legacy definitions do not define (they define: \(known.isEmpty ? "nothing for this app" : known.joined(separator: ", ")))"))
                continue
            }
            reports.append(SchemaCompatibility.compare(legacy: old, new: definition, detectRenames: detectRenames))
        }
    }

    /// Whether every migration is compatible and nothing is missing.
    public var isApplicable: Bool { problems.isEmpty && reports.allSatisfy(\.isCompatible) }

    /// The first reason the plan is refused, naming the intent and parameter.
    public var refusal: MigrationError? {
        if let problem = problems.first { return problem }
        for report in reports {
            if let change = report.incompatibilities.first {
                return MigrationError(intent: report.newIntent, parameter: change.parameter,
                                      reason: "incompatible with legacy \(report.legacyIntent): \(change)")
            }
        }
        return nil
    }

    /// The stored definitions after the migration: legacy definitions migrated
    /// by a new one are removed, the new definitions added (replacing same-named ones).
    /// - Throws: `refusal` when the plan is not applicable.
    public func apply(to stored: [IntentDefinition]) throws(MigrationError) -> [IntentDefinition] {
        if let refusal { throw refusal }
        let replaced = Set(new.map { MigratedName(app: $0.app, name: $0.name) })
            .union(new.compactMap { definition in definition.migratesFrom.map { MigratedName(app: definition.app, name: $0) } })
        var result = stored.filter { !replaced.contains(MigratedName(app: $0.app, name: $0.name)) }
        result += new
        do { _ = try IntentDefinitionSet(result) } catch { throw MigrationError(intent: error.path, reason: error.reason) }
        return result
    }

    private struct MigratedName: Hashable {
        var app: String
        var name: String
    }
}
