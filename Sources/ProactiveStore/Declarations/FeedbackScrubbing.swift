import Foundation
import GRDB
import ProactiveCore

// MARK: - Feedback that names deleted donations

/// Deleting donations also deletes the feedback that names them, in the same
/// transaction, so no parameter value outlives its donations in a tap's
/// target, a configured widget or a tap's action.
///
/// A feedback event names a target (its `target` key, its widget's
/// configuration, its tap's action). It is deleted when a deleted donation
/// made one of those targets and no remaining donation of the same user and
/// app makes it: feedback about what is still donated, and feedback that
/// never came from a donation (an app-wide "never", a static widget), stay.
package enum FeedbackScrubbing {
    /// A donation's target-making fields.
    package struct Made: Hashable {
        var intent: String
        var parametersJSON: String
    }

    package struct UserApp: Hashable {
        var user: String
        var app: String
    }

    /// The reads and the deletion scrubbing does, inside the transaction that deletes the donations.
    package struct Access {
        /// The distinct `parameters` of the donations still stored for (user, app, intent).
        package var remainingParameters: (_ user: String, _ app: String, _ intent: String) throws -> [String]
        /// The feedback rows (id, scope, event) of (user, app) whose scope is not `app:`.
        package var feedback: (_ user: String, _ app: String) throws -> [(id: Int64, scope: String, event: String)]
        /// Deletes one feedback row by id.
        package var delete: (_ id: Int64) throws -> Void

        package init(remainingParameters: @escaping (String, String, String) throws -> [String],
                     feedback: @escaping (String, String) throws -> [(id: Int64, scope: String, event: String)],
                     delete: @escaping (Int64) throws -> Void) {
            self.remainingParameters = remainingParameters
            self.feedback = feedback
            self.delete = delete
        }
    }

    /// The condition on `donation` rows whose user and app have feedback naming a target: only
    /// those can have feedback to scrub, so the others are not read (SQL for SQLite and PostgreSQL).
    package static let hasTargetFeedback = """
        EXISTS (SELECT 1 FROM feedback f WHERE f."user" = donation."user" AND f.app = donation.app AND f.scope NOT LIKE 'app:%')
        """

    /// What the donations selected by `condition` (empty, or ` WHERE ...`) make, by user and app
    /// (read before deleting them; only for users and apps with feedback naming a target).
    static func made(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [UserApp: Set<Made>] {
        var made: [UserApp: Set<Made>] = [:]
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM feedback WHERE scope NOT LIKE 'app:%')") != true { return made }
        let selected = condition.isEmpty ? " WHERE " + hasTargetFeedback
            : " WHERE (" + condition.dropFirst(" WHERE ".count) + ") AND " + hasTargetFeedback
        precondition(condition.isEmpty || condition.hasPrefix(" WHERE "), "a condition starts with WHERE")
        let rows = try Row.fetchCursor(db, sql: "SELECT DISTINCT user, app, intent, parameters FROM donation" + selected, arguments: arguments)
        while let row = try rows.next() {
            made[UserApp(user: row[0], app: row[1]), default: []].insert(Made(intent: row[2], parametersJSON: row[3]))
        }
        return made
    }

    /// What the given donation rows (user, app, intent, parameters) make, by user and app.
    package static func made(_ rows: [(user: String, app: String, intent: String, parametersJSON: String)]) -> [UserApp: Set<Made>] {
        var made: [UserApp: Set<Made>] = [:]
        for row in rows { made[UserApp(user: row.user, app: row.app), default: []].insert(Made(intent: row.intent, parametersJSON: row.parametersJSON)) }
        return made
    }

    /// `scrub(_:deleted:)` on a SQLite transaction.
    @discardableResult
    static func scrub(_ db: Database, deleted: [UserApp: Set<Made>]) throws -> Int {
        try scrub(Access(
            remainingParameters: { user, app, intent in
                try String.fetchAll(db, sql: "SELECT DISTINCT parameters FROM donation WHERE user = ? AND app = ? AND intent = ?",
                                    arguments: [user, app, intent])
            },
            feedback: { user, app in
                try Row.fetchAll(db, sql: "SELECT id, scope, event FROM feedback WHERE user = ? AND app = ? AND scope NOT LIKE 'app:%'",
                                 arguments: [user, app]).map { (id: $0[0], scope: $0[1], event: $0[2]) }
            },
            delete: { id in try db.execute(sql: "DELETE FROM feedback WHERE id = ?", arguments: [id]) }),
            deleted: deleted)
    }

    /// Deletes the feedback of each user and app in `deleted` that names a
    /// target only deleted donations made. - Returns: how many events were deleted.
    @discardableResult
    package static func scrub(_ access: Access, deleted: [UserApp: Set<Made>]) throws -> Int {
        var removed = 0
        for (owner, made) in deleted {
            var remaining: [String: [[String: ParameterValue]]] = [:]  // by intent, read once
            func stillMade(_ name: NamedTarget) throws -> Bool {
                if remaining[name.intent] == nil {
                    remaining[name.intent] = try access.remainingParameters(owner.user, owner.app, name.intent).compactMap(parameters)
                }
                return remaining[name.intent]!.contains { name.isMade(by: name.intent, $0, app: owner.app) }
            }
            let deletedByIntent = Dictionary(grouping: made, by: \.intent).mapValues { $0.compactMap { parameters($0.parametersJSON) } }
            for row in try access.feedback(owner.user, owner.app) {
                let named = namedTargets(scope: row.scope, event: row.event, app: owner.app)
                var orphaned = false
                for name in named {
                    let madeByDeleted = deletedByIntent[name.intent]?.contains { name.isMade(by: name.intent, $0, app: owner.app) } == true
                    if madeByDeleted, try !stillMade(name) { orphaned = true; break }
                }
                guard orphaned else { continue }
                try access.delete(row.id)
                removed += 1
            }
        }
        return removed
    }

    /// A target a feedback event names: its key, intent and the key's parameter names.
    struct NamedTarget {
        var key: TargetKey
        var intent: String
        var names: [String]

        func isMade(by intent: String, _ parameters: [String: ParameterValue], app: String) -> Bool {
            intent == self.intent && key.isMade(app: app, intent: intent, parameters: parameters, names: names)
        }
    }

    /// The targets named by a stored feedback row (`scope` column and canonical event JSON).
    static func namedTargets(scope: String, event: String, app: String) -> [NamedTarget] {
        var named: [NamedTarget] = []
        if scope.hasPrefix("target:") {
            let key = TargetKey(rawValue: String(scope.dropFirst("target:".count)))
            if let parts = key.intentAndParameterNames { named.append(NamedTarget(key: key, intent: parts.intent, names: parts.parameterNames)) }
        }
        guard let json = try? JSONParser.parse(event) else { return named }
        for configuration in [json["widget"]?["configuration"], json["action"]].compactMap({ $0 }) {
            guard case let .string(intent)? = configuration["intent"] else { continue }
            var values: [String: ParameterValue] = [:]
            if case let .object(members)? = configuration["parameters"] {
                for (name, value) in members { values[name] = try? ParameterValue(json: value) }
            }
            named.append(NamedTarget(key: TargetKey(app: app, intent: intent, parameters: values), intent: intent, names: Array(values.keys)))
        }
        return named
    }

    /// A stored `parameters` column as values (nil when it does not decode).
    static func parameters(_ json: String) -> [String: ParameterValue]? {
        if json == "{}" { return [:] }
        guard case let .object(members)? = try? JSONParser.parse(json) else { return nil }
        var values: [String: ParameterValue] = [:]
        for (name, value) in members {
            guard let parsed = try? ParameterValue(json: value) else { return nil }
            values[name] = parsed
        }
        return values
    }
}
