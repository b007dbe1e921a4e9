import Foundation
import GRDB

// MARK: - Opening a device database snapshot

/// Read-only access to a device's SQLite file (a copied snapshot).
enum DeviceLogDatabase {
    /// Opens a copied device database read-only as an immutable snapshot, so
    /// nothing (no `-wal` or `-shm` file) is ever written beside it, even for
    /// the WAL-mode files devices produce.
    ///
    /// - Throws: `StoreError.io` when the file is missing or not SQLite.
    static func openSnapshot(path: String) throws(StoreError) -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.io, "cannot open \(path): no such file")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "device-log"
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        do {
            let queue = try DatabaseQueue(path: "file:\(encoded)?immutable=1", configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch {
            throw StoreError(.io, "cannot read \(path): not a readable SQLite database (\(error))")
        }
    }

    /// The error for a SQLite file of the wrong kind.
    static func wrongKind(_ path: String, _ reason: String) -> StoreError {
        StoreError(.io, "cannot read \(path): \(reason)")
    }

    /// Table names in the database.
    static func tables(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    }

    /// Column names of one table (empty when the table is absent).
    static func columns(_ db: Database, table: String) throws -> Set<String> {
        Set(try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).map { $0["name"] as String })
    }
}
