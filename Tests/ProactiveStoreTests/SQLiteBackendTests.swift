import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// The SQLite store as a `StoreBackend`: the whole-store answers on a file and in memory.
@Suite("SQLite backend")
struct SQLiteBackendTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func aFileIsItsOwnLocationWithTheCurrentSchemaAndAWatch() throws {
        let path = directory.file("store.sqlite")
        let storage: any StoreBackend = try SQLiteBackend(path: path)
        #expect(storage.location == path && storage.filePath == path)
        #expect(try storage.schemaVersion() == SQLiteBackend.currentSchema)
        #expect(try storage.appliedMigrations() == ProactiveDatabase.migrations.map(\.name))
        #expect(try storage.integrityProblems().isEmpty)
        let watch = try #require(storage.changeWatch())
        let seen = watch.donationMark()
        try storage.donations.append(sample(identifier: "a"))
        #expect(watch.donationMark() != seen)
        #expect(try storage.donations.count() == 1)
        #expect(try SQLiteBackend(path: path, mode: .readOnly).donations.count() == 1)
    }

    @Test func inMemoryThereIsNoFileAndNoOtherWriterToWatch() throws {
        let storage = try SQLiteBackend.inMemory()
        #expect(storage.filePath == nil && storage.location == "in-memory store")
        #expect(storage.changeWatch() == nil)
        #expect(try storage.schemaVersion() == SQLiteBackend.currentSchema)
    }

    @Test func aMissingFileIsRefusedWhenItMustExist() throws {
        let path = directory.file("missing.sqlite")
        #expect { try SQLiteBackend(path: path, mode: .mustExist) } throws: { ($0 as? StoreError)?.code == .missingStore }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Tuned for a long-running writer, as the service asks: a larger page cache and rarer checkpoints.
    @Test func sustainedWritesTuneTheWriteConnection() throws {
        let storage = try SQLiteBackend(path: directory.file("served.sqlite"))
        try storage.prepareForSustainedWrites()
        let checkpoint = try storage.database.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")! }
        #expect(checkpoint == ProactiveDatabase.bulkCheckpointPages)
    }
}
