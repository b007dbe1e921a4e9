import Foundation
import GRDB
import ProactiveCore

// MARK: - How far along a saved state is

/// A saved state and what it has not folded in yet (`proactive models list`).
///
/// A state is consistent with the store when `learned + pendingNew -
/// pendingDeleted == stored`: what it learned, plus the donations stored
/// since its high-water mark, minus the journaled deletions of donations it
/// learned, is what the store holds for the user. The next reader folds the
/// pending changes in.
public struct ModelStateStatus: Sendable, Hashable {
    public var user: String
    public var name: String
    /// Donations the saved state has learned.
    public var learned: Int
    /// The user's donations stored after the state's high-water mark (not learned yet).
    public var pendingNew: Int
    /// Journaled deletions of donations the state learned (not unlearned yet).
    public var pendingDeleted: Int
    /// The user's donations in the store (rows).
    public var stored: Int
    public var highWater: Int64
    public var erasureMark: Int64
    public var bytes: Int
    public var trainedAt: Date
    public var savedAt: Date

    public init(user: String, name: String, learned: Int, pendingNew: Int, pendingDeleted: Int, stored: Int, highWater: Int64,
                erasureMark: Int64, bytes: Int, trainedAt: Date, savedAt: Date) {
        (self.user, self.name, self.learned, self.pendingNew, self.pendingDeleted, self.stored) = (user, name, learned, pendingNew, pendingDeleted, stored)
        (self.highWater, self.erasureMark, self.bytes, self.trainedAt, self.savedAt) = (highWater, erasureMark, bytes, trainedAt, savedAt)
    }

    /// Whether the state plus its pending changes is exactly what the store holds.
    public var isConsistent: Bool { learned + pendingNew - pendingDeleted == stored }
}

extension SQLiteModelStateStore {
    /// Every saved state (or the user's), sorted by user and name, with its pending changes, read in one snapshot.
    package func statuses(user: String? = nil) throws(StoreError) -> [ModelStateStatus] {
        try StoreError.wrap("reading the saved models") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT s.user, s.name, s.donation_count,
                           (SELECT count(*) FROM donation d WHERE d.user = s.user AND d.id > s.high_water),
                           (SELECT count(*) FROM model_erasure e WHERE e.user = s.user AND e.seq > s.erasure_mark
                                                                 AND e.donation_id <= s.high_water),
                           (SELECT count(*) FROM donation d WHERE d.user = s.user),
                           s.high_water, s.erasure_mark, length(s.bytes) + \(SQLiteModelStateStore.heavyLengthSQL), s.trained_at_ms, s.saved_at_ms
                    FROM model_state s WHERE ?1 IS NULL OR s.user = ?1 ORDER BY s.user, s.name
                    """, arguments: [user]).map { row in
                    ModelStateStatus(user: row[0], name: row[1], learned: row[2], pendingNew: row[3], pendingDeleted: row[4], stored: row[5],
                                     highWater: row[6], erasureMark: row[7], bytes: row[8], trainedAt: Date(millisecondsSince1970: row[9]),
                                     savedAt: Date(millisecondsSince1970: row[10]))
                }
            }
        }
    }
}
