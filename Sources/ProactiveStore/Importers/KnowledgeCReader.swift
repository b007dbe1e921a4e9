import Foundation
import GRDB
import ProactiveCore

// MARK: - knowledgeC.db reader

/// Reads Apple's knowledgeC.db (CoreDuet; macOS and iOS) into donations, streaming.
///
/// `ZOBJECT` rows are read in start-date order with `ZSOURCE` and
/// `ZSTRUCTUREDMETADATA` joined when those tables exist; each row is converted
/// by `KnowledgeCRecord.convert(options:intentColumnsPresent:)`. Streams other
/// than `/app/inFocus`, `/app/usage` and `/app/intents` are counted and skipped.
/// A donation equal to one already read at the same instant (a launch recorded
/// in both `/app/inFocus` and `/app/usage`) is kept once; the other is dropped with the reason.
/// Databases without the intent metadata columns (older schemas, or these
/// test files) still read: their `/app/intents` rows, if any, are dropped with
/// a reason.
///
/// ```swift
/// let summary = try KnowledgeCReader.read(path: "datasets/device-logs/knowledgec-10.14.db",
///                                         options: KnowledgeCOptions()) { donations.append($0) }
/// ```
package enum KnowledgeCReader {
    package static let format = "knowledgec"

    /// Why a row equal to one already read is dropped: one launch is often recorded in both
    /// `/app/inFocus` and `/app/usage`, with the same bundle id and start date. Counting it twice
    /// would also give `evaluate` rows that `import` skips (the store keeps equal donations once).
    static let sameLaunchReason = "equal to a donation already read at the same instant (one launch in /app/inFocus and /app/usage)"

    static let intentClassColumn = "Z_DKINTENTMETADATAKEY__INTENTCLASS"
    static let intentVerbColumn = "Z_DKINTENTMETADATAKEY__INTENTVERB"

    /// Streams the database's donations to `emit`, oldest first.
    ///
    /// - Throws: `StoreError.io` when the file is not a knowledgeC database
    ///   (no `ZOBJECT` table with `ZSTREAMNAME` and `ZSTARTDATE`); whatever
    ///   `onProblem` (called for each malformed row after it is recorded) or `emit` throws.
    package static func read(path: String, options: KnowledgeCOptions,
                            onProblem: (DeviceLogProblem) throws -> Void = { _ in },
                            emit: (Donation) throws -> Void) throws -> DeviceLogSummary {
        let queue = try DeviceLogDatabase.openSnapshot(path: path)
        var summary = DeviceLogSummary(format: format)
        do {
            try queue.read { db in
                let (sql, intentColumns) = try query(db, path: path)
                if !intentColumns { summary.notes.append("no intent metadata columns (\(intentClassColumn)); /app/intents rows cannot be read") }
                let cursor = try Row.fetchCursor(db, sql: sql)
                // Donations already emitted at the current start date: rows come in start-date order, so
                // an equal donation at the same instant can only be among these.
                var atStart: (date: Date?, donations: Set<Donation>) = (nil, [])
                while let row = try cursor.next() {
                    summary.rowsRead += 1
                    switch record(from: row).convert(options: options, intentColumnsPresent: intentColumns) {
                    case let .donation(donation):
                        if donation.date != atStart.date { atStart = (donation.date, []) }
                        guard atStart.donations.insert(donation).inserted else {
                            summary.drop(Self.sameLaunchReason)
                            continue
                        }
                        summary.kept += 1
                        try emit(donation)
                    case let .skipped(kind): summary.skip(kind)
                    case let .dropped(reason): summary.drop(reason)
                    case let .problem(problem):
                        summary.record(problem)
                        try onProblem(problem)
                    }
                }
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, while: "reading \(path)")
        }
        summary.notes.append(options.timeZone.map { "local time in \($0.identifier)" } ?? "local time from ZSECONDSFROMGMT")
        return summary
    }

    // MARK: Query

    /// The `ZOBJECT` query for this database's schema, and whether intent columns exist.
    static func query(_ db: Database, path: String) throws -> (sql: String, intentColumns: Bool) {
        let objectColumns = try DeviceLogDatabase.columns(db, table: "ZOBJECT")
        for required in ["Z_PK", "ZSTREAMNAME", "ZSTARTDATE"] where !objectColumns.contains(required) {
            throw DeviceLogDatabase.wrongKind(path, objectColumns.isEmpty
                ? "not a knowledgeC database (no table ZOBJECT)"
                : "not a knowledgeC database (ZOBJECT has no column \(required))")
        }
        func objectColumn(_ name: String) -> String { objectColumns.contains(name) ? "o.\(name)" : "NULL" }
        let sourceColumns = try DeviceLogDatabase.columns(db, table: "ZSOURCE")
        let joinSource = objectColumns.contains("ZSOURCE") && sourceColumns.contains("Z_PK")
        func sourceColumn(_ name: String) -> String { joinSource && sourceColumns.contains(name) ? "s.\(name)" : "NULL" }
        let metadataColumns = try DeviceLogDatabase.columns(db, table: "ZSTRUCTUREDMETADATA")
        let intentColumns = objectColumns.contains("ZSTRUCTUREDMETADATA") && metadataColumns.contains("Z_PK")
            && metadataColumns.contains(intentClassColumn)
        let verb = intentColumns && metadataColumns.contains(intentVerbColumn) ? "m.\(intentVerbColumn)" : "NULL"

        var sql = """
            SELECT o.Z_PK AS pk, o.ZSTREAMNAME AS stream, o.ZSTARTDATE AS start,
                   \(objectColumn("ZVALUESTRING")) AS value, \(objectColumn("ZSECONDSFROMGMT")) AS offset,
                   \(sourceColumn("ZBUNDLEID")) AS bundle, \(sourceColumn("ZGROUPID")) AS grp,
                   \(intentColumns ? "m.\(intentClassColumn)" : "NULL") AS intent_class, \(verb) AS intent_verb
            FROM ZOBJECT o
            """
        if joinSource { sql += "\nLEFT JOIN ZSOURCE s ON s.Z_PK = o.ZSOURCE" }
        if intentColumns { sql += "\nLEFT JOIN ZSTRUCTUREDMETADATA m ON m.Z_PK = o.ZSTRUCTUREDMETADATA" }
        sql += "\nORDER BY o.ZSTARTDATE, o.Z_PK"
        return (sql, intentColumns)
    }

    /// Reads the joined columns leniently: a value of the wrong type reads as
    /// absent, and conversion then names the field.
    static func record(from row: Row) -> KnowledgeCRecord {
        func text(_ column: String) -> String? { String.fromDatabaseValue(row[column] as DatabaseValue) }
        return KnowledgeCRecord(
            key: Int64.fromDatabaseValue(row["pk"] as DatabaseValue) ?? -1,
            stream: text("stream"),
            startDate: Double.fromDatabaseValue(row["start"] as DatabaseValue),
            valueString: text("value"),
            secondsFromGMT: Int.fromDatabaseValue(row["offset"] as DatabaseValue),
            sourceBundle: text("bundle"),
            sourceGroup: text("grp"),
            intentClass: text("intent_class"),
            intentVerb: text("intent_verb"))
    }
}
