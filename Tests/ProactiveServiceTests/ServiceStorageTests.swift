import Foundation
import Logging
import ProactiveService
import ProactiveStore
import Testing

/// What `serve` asks of the store it is given.
@Suite("Service: its store")
struct ServiceStorageTests {
    /// A SQLite store keeps the credentials in files beside its file: one in memory has nowhere to
    /// keep them and is refused before anything listens, with the store named.
    @Test("a SQLite store in memory is refused before anything listens")
    func aStoreWithoutAFileIsRefused() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-\(UUID().uuidString).sock").path
        do {
            try await ProactiveService.serve(storage: try SQLiteBackend.inMemory(), settings: ServeSettings(address: .socket(path: socket)),
                                             logger: Logger(label: "test"))
            Issue.record("served a store without a file")
        } catch let error as StoreError {
            #expect(error.code == .invalidRequest)
            #expect(error.message.hasPrefix("in-memory store: "))
        }
        #expect(!FileManager.default.fileExists(atPath: socket))
    }
}
