import Foundation
import Logging
import ProactiveService
import ProactiveStore
import Testing

/// What `serve` asks of the store it is given.
@Suite("Service: its store")
struct ServiceStorageTests {
    /// The credentials are files beside the store's file: a store that is not a file is refused
    /// before anything listens, with the store named.
    @Test("a store that is not a file is refused before anything listens")
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
