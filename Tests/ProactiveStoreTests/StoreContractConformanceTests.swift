import Foundation
import ProactiveCore
import ProactiveStore
import StoreConformance
import Testing

/// The contracts of the store's parts (StoreProtocols.swift), as shared checks, on the SQLite stores.
@Suite("Store contracts on SQLite")
struct StoreContractConformanceTests {
    @Test(arguments: ModelStateStoreConformance.checks)
    func modelStates(check: ModelStateStoreConformance.Check) throws {
        let database = try ProactiveDatabase.inMemory()
        try check.run(.init(states: SQLiteModelStateStore(database: database), donations: SQLiteDonationStore(database: database)))
    }
}
