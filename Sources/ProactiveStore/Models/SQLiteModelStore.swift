import Foundation
import GRDB

// MARK: - Saved model rows

/// A model saved for one user, with what it was trained on.
public struct SavedModel: Sendable, Equatable {
    public var user: String
    /// The model's name (`blend`, `profile`, `logistic`).
    public var name: String
    /// The model file bytes (magic, version, payload, checksum).
    public var bytes: [UInt8]
    public var trainedAt: Date
    /// How many donations (rows) the user had when the model was trained, and the latest one's date:
    /// when either differs now, the model is stale.
    public var donationCount: Int
    public var latestDonation: Date?

    public init(user: String, name: String, bytes: [UInt8], trainedAt: Date, donationCount: Int, latestDonation: Date?) {
        self.user = user
        self.name = name
        self.bytes = bytes
        self.trainedAt = trainedAt
        self.donationCount = donationCount
        self.latestDonation = latestDonation
    }
}

// MARK: - Store

/// Saved per-user models in the store's `model` table. Each save replaces the
/// previous model in one transaction (atomic: a reader sees the old bytes or
/// the new ones, never half of either).
public struct SQLiteModelStore: Sendable {
    public let database: ProactiveDatabase

    public init(database: ProactiveDatabase) { self.database = database }

    /// Saves (or replaces) a model.
    public func save(_ model: SavedModel) throws(StoreError) {
        try StoreError.wrap("saving the \(model.name) model of user \(model.user)") {
            try database.writer.write { db in try Self.insert(model, db) }
        }
    }

    /// How many donations have ever been deleted from the store. Read it
    /// before reading the donations a model is trained on.
    public func erasureMark() throws(StoreError) -> Int64 {
        try StoreError.wrap("reading the erasure counter") {
            try database.writer.read { db in try Self.erasureMark(db) }
        }
    }

    /// Saves the model only if no donation was deleted since `mark`
    /// (`erasureMark()` read before training), in one transaction: a model
    /// never keeps a donation that was deleted while it was being trained.
    /// - Returns: false (nothing saved) when a deletion happened meanwhile.
    public func save(_ model: SavedModel, ifNoDeletionSince mark: Int64) throws(StoreError) -> Bool {
        try StoreError.wrap("saving the \(model.name) model of user \(model.user)") {
            try database.writer.write { db in
                guard try Self.erasureMark(db) == mark else { return false }
                try Self.insert(model, db)
                return true
            }
        }
    }

    private static func erasureMark(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT deleted_donations FROM erasure_counter WHERE id = 1") ?? 0
    }

    private static func insert(_ model: SavedModel, _ db: Database) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO model (user, name, bytes, trained_at_ms, donation_count, latest_donation_ms)
            VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [model.user, model.name, Data(model.bytes), milliseconds(model.trainedAt),
                             model.donationCount, model.latestDonation.map(milliseconds)])
    }

    /// The saved model, or nil when there is none.
    public func load(user: String, name: String) throws(StoreError) -> SavedModel? {
        try StoreError.wrap("reading the \(name) model of user \(user)") {
            try database.writer.read { db in
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT bytes, trained_at_ms, donation_count, latest_donation_ms FROM model WHERE user = ? AND name = ?
                    """, arguments: [user, name]) else { return nil }
                let data: Data = row["bytes"]
                let latest: Int64? = row["latest_donation_ms"]
                return SavedModel(user: user, name: name, bytes: [UInt8](data), trainedAt: Self.date(row["trained_at_ms"]),
                                  donationCount: row["donation_count"], latestDonation: latest.map(Self.date))
            }
        }
    }

    /// (user, name, size in bytes) of every saved model, sorted.
    public func list() throws(StoreError) -> [(user: String, name: String, bytes: Int)] {
        try StoreError.wrap("listing saved models") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT user, name, length(bytes) AS size FROM model ORDER BY user, name").map {
                    (user: $0["user"], name: $0["name"], bytes: $0["size"])
                }
            }
        }
    }

    /// Deletes a user's saved models (all names when `name` is nil). - Returns: how many.
    @discardableResult
    public func delete(user: String, name: String? = nil) throws(StoreError) -> Int {
        try StoreError.wrap("deleting saved models of user \(user)") {
            try database.writer.write { db in
                if let name {
                    try db.execute(sql: "DELETE FROM model WHERE user = ? AND name = ?", arguments: [user, name])
                } else {
                    try db.execute(sql: "DELETE FROM model WHERE user = ?", arguments: [user])
                }
                return db.changesCount
            }
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
