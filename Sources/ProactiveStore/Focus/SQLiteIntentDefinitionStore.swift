import GRDB
import ProactiveCore

// MARK: - Intent definition store

/// The current intent definitions, kept in the store file so that every
/// command resolves targets the same way (e.g. after `proactive migrate apply`,
/// legacy donations resolve to the intent that migrates them).
///
/// ```swift
/// let definitions = SQLiteIntentDefinitionStore(database: database)
/// try definitions.replace(with: try plan.apply(to: definitions.all()), apps: ["com.example.coffee"])
/// let resolver = TargetResolver(definitions: try IntentDefinitionSet(definitions.all()))
/// ```
package struct SQLiteIntentDefinitionStore: Sendable {
    package let database: ProactiveDatabase

    package init(database: ProactiveDatabase) {
        self.database = database
    }

    /// Every stored definition, by app then name.
    /// - Throws: `StoreError(.corrupt)` when a stored definition no longer parses.
    package func all() throws(StoreError) -> [IntentDefinition] {
        let rows = try StoreError.wrap("reading intent definitions") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT app, name, definition FROM intent_definition ORDER BY app, name").map { row in
                    (app: row[0] as String, name: row[1] as String, json: row[2] as String)
                }
            }
        }
        return try Self.definitions(rows)
    }

    /// Stored rows (app, name, the definition's JSON) as definitions.
    /// - Throws: `StoreError(.corrupt)` naming the first row that no longer parses.
    package static func definitions(_ rows: [(app: String, name: String, json: String)]) throws(StoreError) -> [IntentDefinition] {
        var definitions: [IntentDefinition] = []
        for row in rows {
            do {
                let intent = try JSONParser.parse(row.json)
                definitions += try IntentDefinitionSet.parse(.object([("app", .string(row.app)), ("intents", .array([intent]))]))
            } catch {
                throw StoreError(.corrupt, "stored intent definition \(row.app) \(row.name) is unreadable: \(error)")
            }
        }
        return definitions
    }

    /// Replaces every stored definition of `apps` with the definitions of those
    /// apps in `definitions`, in one transaction; other apps are untouched.
    /// - Throws: `StoreError(.invalidRequest)` when the resulting set is inconsistent
    ///   (an intent defined twice, a legacy name migrated twice or also a current intent).
    package func replace(with definitions: [IntentDefinition], apps: Set<String>) throws(StoreError) {
        let written = try Self.written(definitions, apps: apps, stored: try all())
        try StoreError.wrap("storing \(written.count) intent definitions") {
            try database.writer.write { db in
                for app in apps.sorted() { try db.execute(sql: "DELETE FROM intent_definition WHERE app = ?", arguments: [app]) }
                for definition in written {
                    try db.execute(sql: "INSERT INTO intent_definition (app, name, migrates_from, definition) VALUES (?, ?, ?, ?)",
                                   arguments: [definition.app, definition.name, definition.migratesFrom, JSONWriter.string(definition.intentJSON)])
                }
            }
        }
    }

    /// The definitions of `apps` that `replace` writes, checked against the `stored` ones of other apps.
    /// - Throws: `StoreError(.invalidRequest)` when the resulting set is inconsistent.
    package static func written(_ definitions: [IntentDefinition], apps: Set<String>, stored: [IntentDefinition]) throws(StoreError)
        -> [IntentDefinition] {
        let kept = stored.filter { !apps.contains($0.app) }
        let written = definitions.filter { apps.contains($0.app) }
        var names = Set<String>(), legacyNames = Set<String>()
        for definition in written {
            guard names.insert(definition.app + " " + definition.name).inserted else {
                throw StoreError(.invalidRequest, "intent \(definition.name) of \(definition.app) is defined twice")
            }
            if let legacy = definition.migratesFrom, !legacyNames.insert(definition.app + " " + legacy).inserted {
                throw StoreError(.invalidRequest, "\(legacy) of \(definition.app) is migrated by two intents")
            }
        }
        do { _ = try IntentDefinitionSet(kept + written) } catch {
            throw StoreError(.invalidRequest, "the intent definitions are inconsistent: \(error)")
        }
        return written
    }
}
